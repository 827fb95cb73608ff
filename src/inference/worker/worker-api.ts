/**
 * The types both sides of a worker seam are checked against. Each worker declares one `Api`
 * interface next to its module, e.g.
 *
 * ```ts
 * interface AsrApi {
 *   transcribe(request: AsrRequest, context: CallContext): Promise<AsrResponse>;
 * }
 * ```
 *
 * The worker implements it with `serveWorker<AsrApi, AsrInit>(setup)` and the main thread calls
 * it through `ModelWorker<AsrApi>`: a method name, payload or result that does not match the
 * interface fails to compile on either side, so renaming a method cannot go unnoticed.
 */
import type { Transferable } from './worker-protocol.js';

/**
 * What a worker method gets besides its payload. `Progress` is what the method may report
 * before its answer (e.g. each transcribed segment); `never` for a method that reports nothing.
 */
export interface CallContext<Progress = never> {
  /**
   * Aborts when the caller cancels this call (its client went away, or its deadline passed).
   * Long methods check it between their steps.
   */
  readonly signal: AbortSignal;
  /**
   * Runs `job` on the worker's one queue (fair-queue.ts): one job at a time, the next turn to the
   * requester (API key) that has used the thread least, each requester's jobs in arrival order. A
   * job whose call is cancelled while it waits never starts (its call rejects at once), so a
   * cancelled request gives its place to the next one instead of running for nobody.
   */
  serial<T>(job: () => Promise<T> | T): Promise<T>;
  /**
   * Within a `serial` job: runs one unit of its model work (a window's encoder run, one decode),
   * first handing the thread to another requester's waiting work when that requester has used it
   * less. A long job that steps makes others wait one unit, not the whole job. Outside a job it
   * just runs `unit`.
   */
  step<T>(unit: () => Promise<T> | T): Promise<T>;
  /**
   * Sends `event` (structured-cloneable) to the caller's `onProgress`, in order and before the
   * answer. Dropped once the call is cancelled, or when the caller gave no `onProgress`.
   */
  progress(event: Progress): void;
}

/**
 * The shape every worker Api has: methods taking at most a payload (structured-cloneable) and a
 * CallContext, answering a promise. `dispose` is reserved: the seam calls it on shutdown.
 */
export type WorkerApi<Api> = {
  [M in keyof Api]: M extends 'dispose' ? never : (payload: never, context: CallContext) => Promise<unknown>;
};

export type MethodName<Api> = Extract<keyof Api, string>;

type Method<Api, M extends MethodName<Api>> = Api[M] extends (...args: infer A) => infer R ? { args: A; result: Awaited<R> } : never;

/** The payload of `Api[M]`; `undefined` for a method without one. */
export type PayloadOf<Api, M extends MethodName<Api>> = Method<Api, M>['args'] extends [] ? undefined : Method<Api, M>['args'][0];

export type ResultOf<Api, M extends MethodName<Api>> = Method<Api, M>['result'];

/** What `Api[M]` reports through `context.progress`; `never` when its context has no Progress type. */
export type ProgressOf<Api, M extends MethodName<Api>> = Method<Api, M>['args'] extends [unknown, CallContext<infer P>] ? P : never;

export interface CallOptions<Progress = unknown> {
  /** Buffers moved to the worker instead of copied; the caller loses access to them. */
  transfer?: readonly ArrayBuffer[];
  /**
   * When it aborts, the call rejects at once with its reason and the worker is told to drop the
   * work (see CallContext). Never part of the payload: it cannot be cloned.
   */
  signal?: AbortSignal;
  /**
   * Deadline for the whole call (waiting for a restarted worker included): past it the call
   * rejects with 503 inference_failed and the worker is told to drop it. A worker that does not
   * let go of the call soon after (stuck in native code) is terminated and replaced.
   */
  timeoutMs?: number;
  /** Receives the method's progress events (see CallContext.progress), on the caller's thread. */
  onProgress?: (event: Progress) => void;
  /** Who the call is for (requester.ts); ModelWorker fills in the current request's key. */
  requester?: string;
}

/** The arguments of `call(method, …)`: the payload may be left out only where it is optional. */
export type CallArgs<Api, M extends MethodName<Api>> =
  undefined extends PayloadOf<Api, M>
    ? [payload?: PayloadOf<Api, M>, options?: CallOptions<ProgressOf<Api, M>>]
    : [payload: PayloadOf<Api, M>, options?: CallOptions<ProgressOf<Api, M>>];

/** What a method may answer on the worker side: its result, possibly with buffers to move. */
type Reply<T> = T | Transferable<T> | Promise<T | Transferable<T>>;

/** What `serveWorker`'s setup returns: one function per Api method, plus an optional clean-up. */
export type WorkerImplementation<Api> = {
  [M in MethodName<Api>]: (payload: PayloadOf<Api, M>, context: CallContext<ProgressOf<Api, M>>) => Reply<ResultOf<Api, M>>;
} & {
  /** Frees what the worker holds (ONNX sessions) before its thread ends. */
  dispose?(): unknown;
};

/**
 * A worker module's address, tagged with the Api it serves and the init value it starts from,
 * so that `ModelWorker.start(module, …)` knows both. Make one with `workerModule`.
 */
export interface WorkerModule<Api, Init> {
  readonly url: URL;
  /**
   * Large plain-JavaScript packages the worker imports. Under tsx only, they are imported before
   * tsx registers in the thread: tsx rewrites every ES module it loads, node_modules included,
   * which cost 0.3–0.45 CPU-s a thread for transformers.js's bundle. Compiled workers ignore it.
   */
  readonly packages?: readonly string[];
  /** Type-only: never set. */
  readonly types?: { api: Api; init: Init };
}

/**
 * The worker module `relativePathWithoutExtension` next to the caller: `.ts` when the caller
 * runs from source under tsx, `.js` when it runs from the compiled `dist/`.
 * @example workerModule<AsrApi, AsrWorkerInit>(import.meta.url, './asr-worker')
 */
export function workerModule<Api extends WorkerApi<Api>, Init = undefined>(
  callerUrl: string,
  relativePathWithoutExtension: string,
  options: { packages?: readonly string[] } = {},
): WorkerModule<Api, Init> {
  const extension = new URL(callerUrl).pathname.endsWith('.ts') ? '.ts' : '.js';
  return { url: new URL(`${relativePathWithoutExtension}${extension}`, callerUrl), ...options };
}
