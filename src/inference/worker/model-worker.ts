/**
 * A model's worker thread behind one typed handle: `call(method, payload, options)` is checked
 * against the worker's Api interface. The thread is replaced when it dies (e.g. ONNX Runtime
 * running out of memory): the calls that were in it fail with 503 inference_failed, since the
 * model failed and not the request, and the next call starts a fresh thread, so one crash does
 * not leave a model failing until the server restarts. A call past its deadline answers 503
 * too, and a thread stuck in it is terminated and replaced the same way (once it is out of
 * onnxruntime's native code: native-calls.ts), as does an error onnxruntime throws in the thread;
 * other errors of a living thread pass through unchanged. Optionally the thread
 * starts on first use and stops after a quiet period.
 */
import { InferenceFailedError } from '../../errors.js';
import { abortable } from '../abortable.js';
import { ONNX_RUNTIME_ERROR } from './native-calls.js';
import type { CallArgs, CallOptions, MethodName, ProgressOf, ResultOf, WorkerApi, WorkerModule } from './worker-api.js';
import { currentRequester } from '../../requester.js';
import { CallTimeoutError, WorkerClient } from './worker-client.js';

export interface ModelWorkerOptions<Init> {
  /** Passed to the worker's setup function, for the first thread and every replacement. */
  init: Init;
  /** Names the model in 503 messages. */
  modelId: string;
  /** The thread's name (errors, debuggers). */
  name: string;
  /** See SpawnOptions.stuckGraceMs. */
  stuckGraceMs?: number;
  /**
   * Stop the thread after this long with no call in flight and nothing held (`hold`); the next
   * call starts a fresh one. Without it the thread lives until `dispose`.
   */
  idleStopMs?: number;
}

export class ModelWorker<Api extends WorkerApi<Api>> {
  readonly #module: WorkerModule<Api, unknown>;
  readonly #options: ModelWorkerOptions<unknown>;
  #thread: Promise<WorkerClient<Api>> | undefined;
  /** The thread #thread resolved to, for the common case of a call to a running thread. */
  #running: WorkerClient<Api> | undefined;
  #disposed = false;
  /** Calls in flight plus holds: the thread is not stopped for idleness while above zero. */
  #busy = 0;
  #idleTimer: NodeJS.Timeout | undefined;

  private constructor(module: WorkerModule<Api, unknown>, options: ModelWorkerOptions<unknown>) {
    this.#module = module;
    this.#options = options;
  }

  /** Starts the first thread now; rejects with its setup error (the model cannot load). */
  static async start<Api extends WorkerApi<Api>, Init>(module: WorkerModule<Api, Init>, options: ModelWorkerOptions<Init>): Promise<ModelWorker<Api>> {
    const worker = ModelWorker.create(module, options);
    const thread = worker.#live();
    await thread;
    if (options.idleStopMs !== undefined) worker.#scheduleIdleStop();
    return worker;
  }

  /** A handle whose thread starts on the first call. */
  static create<Api extends WorkerApi<Api>, Init>(module: WorkerModule<Api, Init>, options: ModelWorkerOptions<Init>): ModelWorker<Api> {
    return new ModelWorker<Api>(module as WorkerModule<Api, unknown>, options);
  }

  /** Calls `method` in the worker; see CallOptions for moving buffers, cancelling and deadlines. */
  async call<M extends MethodName<Api>>(method: M, ...[payload, options = {}]: CallArgs<Api, M>): Promise<ResultOf<Api, M>> {
    const { signal, timeoutMs } = options;
    signal?.throwIfAborted(); // before a lazy thread would be started for nobody
    const startedAt = Date.now();
    this.#acquire();
    let thread: WorkerClient<Api> | undefined;
    try {
      // A restart takes seconds; a caller that gives up meanwhile is answered at once.
      thread = await withDeadline(abortable(this.#live(), signal), method, timeoutMs);
      const remaining = timeoutMs === undefined ? undefined : Math.max(1, timeoutMs - (Date.now() - startedAt));
      const callOptions: CallOptions<ProgressOf<Api, M>> = { ...options, timeoutMs: remaining, requester: options.requester ?? currentRequester() };
      return await (thread.call as (method: M, payload: unknown, options: CallOptions<ProgressOf<Api, M>>) => Promise<ResultOf<Api, M>>)(
        method,
        payload,
        callOptions,
      );
    } catch (error) {
      throw this.#asModelFailure(error, thread, signal, { method, timeoutMs });
    } finally {
      this.#release();
    }
  }

  /**
   * Keeps the thread from being stopped for idleness until the returned function is called
   * (e.g. while a stream whose state lives in the thread is open).
   */
  hold(): () => void {
    this.#acquire();
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#release();
    };
  }

  /** Lets the worker free what it holds (its `dispose`), then ends the thread; later calls are refused. */
  async dispose(): Promise<void> {
    this.#disposed = true;
    clearTimeout(this.#idleTimer);
    await this.#stopThread();
  }

  #live(): Promise<WorkerClient<Api>> {
    if (this.#disposed) return Promise.reject(new Error(`Model "${this.#options.modelId}" was unloaded`));
    if (this.#running?.alive) return Promise.resolve(this.#running);
    const current = this.#thread;
    const next = (async () => {
      const thread = await current?.catch(() => undefined);
      if (thread?.alive) return thread;
      const { init, name, stuckGraceMs } = this.#options;
      return WorkerClient.spawn(this.#module, { init, name, stuckGraceMs });
    })();
    void next.then(
      (thread) => this.#thread === next && (this.#running = thread),
      () => {},
    );
    this.#thread = next;
    return next;
  }

  #asModelFailure(
    error: unknown,
    thread: WorkerClient<Api> | undefined,
    signal: AbortSignal | undefined,
    call: { method: string; timeoutMs: number | undefined },
  ): unknown {
    if (signal?.aborted && error === signal.reason) return error;
    const { modelId } = this.#options;
    // The thread was given what was left of the deadline; the client is told the deadline itself.
    if (error instanceof CallTimeoutError) return new InferenceFailedError(modelId, new CallTimeoutError(call.method, call.timeoutMs ?? 0).message);
    if (thread && !thread.alive) return new InferenceFailedError(modelId, (error as Error).message);
    // onnxruntime failed in the thread (a run refused, a session it could not make): the model failed, not the request.
    if ((error as Error | undefined)?.name === ONNX_RUNTIME_ERROR) return new InferenceFailedError(modelId, (error as Error).message);
    return error;
  }

  #acquire(): void {
    this.#busy++;
    clearTimeout(this.#idleTimer);
  }

  #release(): void {
    this.#busy--;
    if (this.#busy === 0) this.#scheduleIdleStop();
  }

  #scheduleIdleStop(): void {
    const { idleStopMs } = this.#options;
    if (idleStopMs === undefined || this.#disposed) return;
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => void this.#stopThread(), idleStopMs);
    this.#idleTimer.unref();
  }

  async #stopThread(): Promise<void> {
    const stopping = this.#thread;
    this.#thread = undefined;
    this.#running = undefined;
    const thread = await stopping?.catch(() => undefined);
    await thread?.dispose();
  }
}

/** `promise`, or a CallTimeoutError once `timeoutMs` has passed. */
function withDeadline<T>(promise: Promise<T>, method: string, timeoutMs: number | undefined): Promise<T> {
  if (timeoutMs === undefined) return promise;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CallTimeoutError(method, timeoutMs)), timeoutMs);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}
