/**
 * One worker thread seen from the main thread: spawn a worker module, call the methods of its
 * Api (request/response matched by id), and end it on dispose. Typed errors thrown in the
 * worker are re-thrown here with their AppError class (see wire-error.ts). A call given an
 * AbortSignal is cancelled on both sides when it aborts; a call past its deadline is too, and
 * the thread is terminated if it does not let go of that call soon after (stuck). A thread is
 * only ever terminated outside onnxruntime's native code: a terminate inside it aborts the
 * process (native-calls.ts). ModelWorker wraps this with respawning; use that for models.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { nativeCallState, untilOutOfNativeCalls } from './native-calls.js';
import { fromWireError } from './wire-error.js';
import type { CallArgs, CallOptions, MethodName, ResultOf, WorkerApi, WorkerModule } from './worker-api.js';
import { movableBuffers, type WorkerData, type WorkerMessage, type WorkerRequest, type WorkerStartup } from './worker-protocol.js';

export interface SpawnOptions<Init> {
  /** Passed to the worker's setup function (must be structured-cloneable). */
  init: Init;
  /** Used in error messages and the thread name. */
  name?: string;
  /**
   * How long a call cancelled by its deadline may still hold the thread before the thread is
   * deemed stuck and terminated. Longer than the longest step between two signal checks.
   */
  stuckGraceMs?: number;
}

/** A call that passed its `timeoutMs`. ModelWorker answers it as 503 inference_failed. */
export class CallTimeoutError extends Error {
  override name = 'CallTimeoutError';
  constructor(method: string, timeoutMs: number) {
    super(`no answer to "${method}" within ${timeoutMs} ms`);
  }
}

/** How long a worker may take to free its ONNX sessions before it is terminated anyway. */
const DISPOSE_GRACE_MS = 2_000;
const DEFAULT_STUCK_GRACE_MS = 5_000;
/**
 * How long a stop waits for the thread to come out of onnxruntime's native code before its caller
 * goes on; the thread itself is terminated only once it has (see native-calls.ts).
 */
const NATIVE_EXIT_WAIT_MS = 10_000;

interface Pending {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /** Stops listening to the call's signal and clears its deadline. */
  release(): void;
  onProgress?: (event: unknown) => void;
}

export class WorkerClient<Api extends WorkerApi<Api>> {
  readonly #worker: Worker;
  /** Shared with the thread: whether it is inside onnxruntime's native code (native-calls.ts). */
  readonly #nativeCalls: Int32Array;
  readonly #name: string;
  readonly #stuckGraceMs: number;
  readonly #pending = new Map<number, Pending>();
  /** Calls cancelled by their deadline that the worker still holds, with the timer that ends it if it never lets go. */
  readonly #overdue = new Map<number, NodeJS.Timeout>();
  #nextId = 1;
  /** Set once the worker is gone; later calls fail with it instead of hanging. */
  #gone: Error | undefined;

  private constructor(worker: Worker, nativeCalls: Int32Array, name: string, stuckGraceMs: number) {
    this.#worker = worker;
    this.#nativeCalls = nativeCalls;
    this.#name = name;
    this.#stuckGraceMs = stuckGraceMs;
    worker.on('message', (message: WorkerMessage) => ('type' in message ? this.#progress(message.id, message.event) : this.#settle(message)));
    worker.on('error', (error) => this.#fail(error));
    worker.on('exit', (code) => this.#fail(new Error(`${name} worker exited (code ${code})`)));
  }

  /**
   * Starts the module (one that calls serveWorker) and resolves once its setup finished;
   * rejects with the setup's error otherwise.
   */
  static async spawn<Api extends WorkerApi<Api>, Init>(module: WorkerModule<Api, Init>, options: SpawnOptions<Init>): Promise<WorkerClient<Api>> {
    const name = options.name ?? module.url.pathname.split('/').pop() ?? 'worker';
    const nativeCalls = nativeCallState();
    const workerData: WorkerData<Init> = { init: options.init, nativeCalls };
    const worker = createWorker(module, { workerData, name });
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
      // Its setup may have left native work going (a second session still loading).
      await stopThread(worker, nativeCalls);
      throw fromWireError(startup.error);
    }
    return new WorkerClient<Api>(worker, nativeCalls, name, options.stuckGraceMs ?? DEFAULT_STUCK_GRACE_MS);
  }

  /** Calls `method` in the worker; see CallOptions for moving buffers, cancelling and deadlines. */
  call<M extends MethodName<Api>>(method: M, ...[payload, options = {}]: CallArgs<Api, M>): Promise<ResultOf<Api, M>> {
    return this.#send(method, payload, options) as Promise<ResultOf<Api, M>>;
  }

  get alive(): boolean {
    return this.#gone === undefined;
  }

  /**
   * Asks the worker to free what it holds (its `dispose`, after its queued jobs), waiting at
   * most a grace period, then ends the thread. Calls still in flight then fail.
   */
  async dispose(): Promise<void> {
    if (this.#gone) return;
    const id = this.#nextId++;
    const freed = new Promise((resolve) => {
      this.#pending.set(id, { resolve, reject: resolve, release: () => {} });
      const request: WorkerRequest = { type: 'dispose', id };
      this.#worker.postMessage(request);
    });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([freed, new Promise((resolve) => (timer = setTimeout(resolve, DISPOSE_GRACE_MS)))]);
    clearTimeout(timer);
    await this.terminate(new Error(`${this.#name} worker was disposed`));
  }

  /**
   * Ends the thread as soon as it is out of native code; calls in flight and later ones fail with
   * `reason` now.
   */
  async terminate(reason = new Error(`${this.#name} worker was terminated`)): Promise<void> {
    if (this.#gone) return;
    this.#fail(reason);
    await stopThread(this.#worker, this.#nativeCalls);
  }

  #send(method: string, payload: unknown, options: CallOptions<never>): Promise<unknown> {
    if (this.#gone) return Promise.reject(this.#gone);
    const { transfer = [], signal, timeoutMs, onProgress, requester } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = this.#nextId++;
    const moved = movableBuffers(transfer);
    return new Promise((resolve, reject) => {
      const request: WorkerRequest = { type: 'call', id, method, payload, requester };
      this.#worker.postMessage(request, moved as ArrayBuffer[]);
      const onAbort = () => this.#cancel(id, signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      const deadline = timeoutMs === undefined ? undefined : setTimeout(() => this.#expire(id, method, timeoutMs), timeoutMs);
      const release = () => {
        signal?.removeEventListener('abort', onAbort);
        clearTimeout(deadline);
      };
      this.#pending.set(id, { resolve, reject, release, onProgress: onProgress as ((event: unknown) => void) | undefined });
    });
  }

  /** Progress of a call still pending; a listener that throws does not break the channel. */
  #progress(id: number, event: unknown): void {
    try {
      this.#pending.get(id)?.onProgress?.(event);
    } catch (error) {
      this.#cancel(id, error);
    }
  }

  #settle(message: Exclude<WorkerMessage, { type: 'progress' }>): void {
    const overdue = this.#overdue.get(message.id);
    if (overdue) {
      clearTimeout(overdue);
      this.#overdue.delete(message.id);
    }
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
    for (const timer of this.#overdue.values()) clearTimeout(timer);
    this.#overdue.clear();
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

  /** The deadline of call `id` passed: cancel it, and end the thread if it does not let go in time. */
  #expire(id: number, method: string, timeoutMs: number): void {
    this.#cancel(id, new CallTimeoutError(method, timeoutMs));
    if (this.#gone) return;
    const stuck = setTimeout(() => {
      void this.terminate(new Error(`${this.#name} worker was stuck in "${method}" past its deadline and was terminated`));
    }, this.#stuckGraceMs);
    this.#overdue.set(id, stuck);
  }
}

/**
 * Terminates `worker` once no call into onnxruntime's native code is in progress in it (a
 * terminate during one aborts the process: native-calls.ts). Waits at most NATIVE_EXIT_WAIT_MS;
 * past that the thread is terminated when its native call returns, without its caller waiting.
 */
async function stopThread(worker: Worker, nativeCalls: Int32Array): Promise<void> {
  if (await untilOutOfNativeCalls(nativeCalls, NATIVE_EXIT_WAIT_MS)) {
    await worker.terminate();
    return;
  }
  void untilOutOfNativeCalls(nativeCalls, Number.POSITIVE_INFINITY).then(() => worker.terminate());
}

/**
 * Under tsx (tests, `npm run dev`) worker modules are .ts files. On Node 20 tsx's `--import`
 * hook does not reach worker threads, so a .ts worker starts from a tiny bootstrap that imports
 * the module's large packages as Node loads them (WorkerModule.packages), registers tsx in the
 * worker, and then imports the module. Compiled `dist/` workers (.js) start directly.
 */
function createWorker(module: Pick<WorkerModule<unknown, unknown>, 'url' | 'packages'>, options: { workerData: unknown; name: string }): Worker {
  const moduleUrl = module.url;
  if (!moduleUrl.pathname.endsWith('.ts')) return new Worker(moduleUrl, options);
  // createRequire, not import.meta.resolve: mocha loads test files through tsx's CJS path.
  // That resolves tsx's CJS API, whose register() is broken in workers; its ESM twin sits
  // next to it.
  const tsxApiCjs = createRequire(import.meta.url).resolve('tsx/esm/api');
  const tsxApi = pathToFileURL(tsxApiCjs.replace(/\.cjs$/, '.mjs')).href;
  const packages = JSON.stringify(module.packages ?? []);
  // A package that does not resolve from here is left to tsx to load as the module imports it.
  const bootstrap = `Promise.all(${packages}.map((name) => import(name).catch(() => {})))
    .then(() => import(${JSON.stringify(tsxApi)}))
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
