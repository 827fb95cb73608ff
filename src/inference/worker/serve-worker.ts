/**
 * The worker side of the seam. A worker module calls `serveWorker<Api, Init>(setup)` once;
 * `setup` receives the client's `init` value and returns the implementation of `Api`, checked
 * by the compiler against the same interface the main thread calls through.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { FairQueue, type JobTurn } from './fair-queue.js';
import { toWireError } from './wire-error.js';
import type { CallContext, WorkerApi, WorkerImplementation } from './worker-api.js';
import { movableBuffers, Transferable, type WorkerProgress, type WorkerRequest, type WorkerResponse, type WorkerStartup } from './worker-protocol.js';
import { guardNativeCalls } from './native-calls.js';
import type { WorkerData } from './worker-protocol.js';

export type { CallContext } from './worker-api.js';

type AnyMethod = (payload: unknown, context: CallContext<unknown>) => unknown;

export interface ServeOptions {
  /**
   * Whether this thread may run onnxruntime (default true). A worker that never does (audio
   * codecs, phonemes) says false, so it does not load onnxruntime's binding only to guard it
   * (native-calls.ts): that maps the library, ~5 MB in a process where no model has loaded it
   * yet (docs/benchmarks.md, "Memory").
   */
  onnxRuntime?: boolean;
}

export function serveWorker<Api extends WorkerApi<Api>, Init = undefined>(
  setup: (init: Init) => Promise<WorkerImplementation<Api>> | WorkerImplementation<Api>,
  options: ServeOptions = {},
): void {
  const port = parentPort;
  if (!port) throw new Error('serveWorker must run inside a worker thread');

  const { init, nativeCalls } = workerData as WorkerData<Init>;
  // Before any session exists: the client must know when this thread is inside onnxruntime.
  if (options.onnxRuntime !== false) guardNativeCalls(nativeCalls);
  const start = async () => {
    let implementation: WorkerImplementation<Api>;
    try {
      implementation = await setup(init);
    } catch (error) {
      const failed: WorkerStartup = { type: 'failed', error: toWireError(error) };
      port.postMessage(failed);
      return;
    }
    const methods = implementation as unknown as Record<string, AnyMethod>;
    /** The one queue of this thread (CallContext.serial), fair between requesters. */
    const queue = new FairQueue();
    /** One controller per call still running here, by request id. */
    const running = new Map<number, AbortController>();

    const answer = async (id: number, work: (signal: AbortSignal) => unknown) => {
      const controller = new AbortController();
      running.set(id, controller);
      let response: WorkerResponse;
      let transfer: ArrayBuffer[] = [];
      try {
        const result = await work(controller.signal);
        if (result instanceof Transferable) {
          transfer = movableBuffers(result.transfer);
          response = { id, ok: true, result: result.value };
        } else {
          response = { id, ok: true, result };
        }
      } catch (error) {
        response = { id, ok: false, error: toWireError(error) };
      } finally {
        running.delete(id);
      }
      // Sent for cancelled calls too: the client already answered them, but learns the thread let go.
      port.postMessage(response, transfer);
    };

    port.on('message', (request: WorkerRequest) => {
      if (request.type === 'cancel') {
        running.get(request.id)?.abort(new Error(`call ${request.id} was cancelled by its caller`));
      } else if (request.type === 'dispose') {
        void answer(request.id, async () => {
          await queue.idle();
          await implementation.dispose?.();
        });
      } else {
        void answer(request.id, (signal) => {
          const method = request.method !== 'dispose' && Object.hasOwn(methods, request.method) ? methods[request.method] : undefined;
          if (!method) throw new Error(`worker has no method "${request.method}"`);
          const progress = (event: unknown) => {
            if (signal.aborted) return; // the caller has stopped listening
            const message: WorkerProgress = { type: 'progress', id: request.id, event };
            port.postMessage(message);
          };
          /** The call's serial job while it runs, whose units `step` marks. */
          let turn: JobTurn | undefined;
          const context: CallContext<unknown> = {
            signal,
            serial: (job) =>
              queue.run(
                request.requester,
                async (jobTurn) => {
                  turn = jobTurn;
                  try {
                    return await job();
                  } finally {
                    turn = undefined;
                  }
                },
                signal,
              ),
            step: async (unit) => (turn ? turn.step(unit) : unit()),
            progress,
          };
          return method(request.payload, context);
        });
      }
    });
    const ready: WorkerStartup = { type: 'ready' };
    port.postMessage(ready);
  };
  void start();
}
