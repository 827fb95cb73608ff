/**
 * The main-thread side of a worker seam: spawn a worker module, call its methods by name
 * (request/response matched by id), and terminate it on dispose. Typed errors thrown in the
 * worker are re-thrown here with their AppError class (see wire-error.ts). A call given an
 * AbortSignal is cancelled on both sides when it aborts.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { fromWireError } from './wire-error.js';
import type { WorkerRequest, WorkerResponse, WorkerStartup } from './worker-protocol.js';

export interface SpawnOptions {
  /** Passed to the worker's setup function (must be structured-cloneable). */
  init?: unknown;
  /** Used in error messages and the thread name. */
  name?: string;
}

export interface CallOptions {
  /** Buffers moved to the worker instead of copied; the caller loses access to them. */
  transfer?: readonly ArrayBuffer[];
  /**
   * When it aborts, the call rejects at once with its reason and the worker is told to drop
   * the work (see CallContext in serve-worker.ts). Never part of the payload: it cannot be cloned.
   */
  signal?: AbortSignal;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /** Stops listening to the call's signal. */
  release(): void;
}

export class WorkerClient {
  readonly #worker: Worker;
  readonly #name: string;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  /** Set once the worker is gone; later calls fail with it instead of hanging. */
  #gone: Error | undefined;

  private constructor(worker: Worker, name: string) {
    this.#worker = worker;
    this.#name = name;
    worker.on('message', (message: WorkerResponse) => this.#settle(message));
    worker.on('error', (error) => this.#fail(error));
    worker.on('exit', (code) => this.#fail(new Error(`${name} worker exited (code ${code})`)));
  }

  /**
   * Starts `moduleUrl` (a module that calls serveWorker) and resolves once its setup
   * finished; rejects with the setup's error otherwise.
   */
  static async spawn(moduleUrl: URL, options: SpawnOptions = {}): Promise<WorkerClient> {
    const name = options.name ?? moduleUrl.pathname.split('/').pop() ?? 'worker';
    const worker = createWorker(moduleUrl, { workerData: options.init, name });
    const startup = await new Promise<WorkerStartup>((resolve, reject) => {
      const onExit = (code: number) => reject(new Error(`${name} worker exited during start-up (code ${code})`));
      worker.once('error', reject);
      worker.once('exit', onExit);
      worker.once('message', (message: WorkerStartup) => {
        worker.off('error', reject);
        worker.off('exit', onExit);
        resolve(message);
      });
    });
    if (startup.type === 'failed') {
      await worker.terminate();
      throw fromWireError(startup.error);
    }
    return new WorkerClient(worker, name);
  }

  /** Calls `method` in the worker; see CallOptions for moving buffers and cancelling. */
  call<T>(method: string, payload?: unknown, options: CallOptions = {}): Promise<T> {
    if (this.#gone) return Promise.reject(this.#gone);
    const { transfer = [], signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = this.#nextId++;
    // An empty buffer gains nothing from a move, and a detached one (moved by an earlier call)
    // would be lost in the worker's deserialisation without a word; cloned, it fails here instead.
    const moved = transfer.filter((buffer) => buffer.byteLength > 0);
    return new Promise<T>((resolve, reject) => {
      const request: WorkerRequest = { type: 'call', id, method, payload };
      this.#worker.postMessage(request, moved as ArrayBuffer[]);
      const onAbort = () => this.#cancel(id, signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      const release = () => signal?.removeEventListener('abort', onAbort);
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject, release });
    });
  }

  get alive(): boolean {
    return this.#gone === undefined;
  }

  async dispose(): Promise<void> {
    if (this.#gone) return;
    this.#fail(new Error(`${this.#name} worker was disposed`));
    await this.#worker.terminate();
  }

  #settle(message: WorkerResponse): void {
    const pending = this.#pending.get(message.id);
    if (!pending) return;
    this.#pending.delete(message.id);
    pending.release();
    if (message.ok) pending.resolve(message.result);
    else pending.reject(fromWireError(message.error));
  }

  #fail(error: Error): void {
    this.#gone ??= error;
    for (const pending of this.#pending.values()) {
      pending.release();
      pending.reject(error);
    }
    this.#pending.clear();
  }

  /** Answers call `id` with `reason` now, and tells the worker to drop its work. */
  #cancel(id: number, reason: unknown): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    pending.release();
    pending.reject(reason);
    const cancel: WorkerRequest = { type: 'cancel', id };
    if (!this.#gone) this.#worker.postMessage(cancel);
  }
}

/**
 * Under tsx (tests, `npm run dev`) worker modules are .ts files. On Node 20 tsx's `--import`
 * hook does not reach worker threads, so a .ts worker starts from a tiny bootstrap that
 * registers tsx in the worker and then imports the module. Compiled `dist/` workers (.js)
 * start directly.
 */
function createWorker(moduleUrl: URL, options: { workerData: unknown; name: string }): Worker {
  if (!moduleUrl.pathname.endsWith('.ts')) return new Worker(moduleUrl, options);
  // createRequire, not import.meta.resolve: mocha loads test files through tsx's CJS path.
  // That resolves tsx's CJS API, whose register() is broken in workers; its ESM twin sits
  // next to it.
  const tsxApiCjs = createRequire(import.meta.url).resolve('tsx/esm/api');
  const tsxApi = pathToFileURL(tsxApiCjs.replace(/\.cjs$/, '.mjs')).href;
  const bootstrap = `import(${JSON.stringify(tsxApi)})
    .then((tsx) => { tsx.register(); return import(${JSON.stringify(moduleUrl.href)}); })
    .catch((error) => { setImmediate(() => { throw error; }); });`;
  return new Worker(bootstrap, { ...options, eval: true, execArgv: withoutTsx(process.execArgv) });
}

/** The parent's flags minus its tsx loader flags, which the bootstrap replaces. */
function withoutTsx(execArgv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let index = 0; index < execArgv.length; index++) {
    const arg = execArgv[index]!;
    if ((arg === '--import' || arg === '--require' || arg === '--loader') && /tsx/.test(execArgv[index + 1] ?? '')) {
      index++;
    } else if (!(/^--(import|require|loader)=/.test(arg) && /tsx/.test(arg))) {
      kept.push(arg);
    }
  }
  return kept;
}

/**
 * URL of a worker module next to the caller: `.ts` when the caller runs from source under
 * tsx, `.js` when it runs from the compiled `dist/`.
 * @example workerModuleUrl(import.meta.url, './asr-worker')
 */
export function workerModuleUrl(callerUrl: string, relativePathWithoutExtension: string): URL {
  const extension = new URL(callerUrl).pathname.endsWith('.ts') ? '.ts' : '.js';
  return new URL(`${relativePathWithoutExtension}${extension}`, callerUrl);
}
