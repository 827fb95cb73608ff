/**
 * A model's worker thread that is replaced when it dies (e.g. ONNX Runtime running out of
 * memory). The calls that were in the dead worker fail with 503 inference_failed, since the
 * model failed and not the request, and the next call starts a fresh worker: one crash does not
 * leave a model failing until the server restarts.
 */
import { InferenceFailedError } from '../../errors.js';
import { abortable } from '../abortable.js';
import type { CallOptions, WorkerClient } from './worker-client.js';

/** How long a worker may take to free its ONNX sessions before it is terminated anyway. */
const DISPOSE_GRACE_MS = 2_000;

export class RespawningWorker {
  readonly #modelId: string;
  readonly #spawn: () => Promise<WorkerClient>;
  #worker: Promise<WorkerClient>;
  #disposed = false;

  constructor(first: WorkerClient, modelId: string, spawn: () => Promise<WorkerClient>) {
    this.#worker = Promise.resolve(first);
    this.#modelId = modelId;
    this.#spawn = spawn;
  }

  async call<T>(method: string, payload?: unknown, options: CallOptions = {}): Promise<T> {
    const { signal } = options;
    // A restart takes seconds; a caller that gives up meanwhile is answered at once.
    const worker = await abortable(this.#live(), signal);
    return worker.call<T>(method, payload, options).catch((error: unknown) => {
      if (worker.alive || (signal?.aborted && error === signal.reason)) throw error;
      throw new InferenceFailedError(this.#modelId, (error as Error).message);
    });
  }

  /** Asks the worker to free its sessions (its `dispose` method, if any), then ends the thread. */
  async dispose(): Promise<void> {
    this.#disposed = true;
    const worker = await this.#worker.catch(() => undefined);
    if (!worker) return;
    await Promise.race([worker.call('dispose').catch(() => undefined), delay(DISPOSE_GRACE_MS)]);
    await worker.dispose();
  }

  async #live(): Promise<WorkerClient> {
    if (this.#disposed) throw new Error(`Model "${this.#modelId}" was unloaded`);
    const current = await this.#worker.catch(() => undefined);
    if (current?.alive) return current;
    this.#worker = this.#spawn();
    return this.#worker;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
