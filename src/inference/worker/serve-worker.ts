/**
 * The worker side of the seam. A worker module calls `serveWorker(setup)` once; `setup`
 * receives the client's `init` value and returns the methods the client may call.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { toWireError } from './wire-error.js';
import { Transferable, type WorkerCall, type WorkerRequest, type WorkerResponse, type WorkerStartup } from './worker-protocol.js';

/** What a method gets besides its payload. */
export interface CallContext {
  /**
   * Aborts when the caller cancels this call (its client went away). Methods that queue work
   * skip it once this has aborted; long ones check it between their steps.
   */
  signal: AbortSignal;
}

export type WorkerMethods = Record<string, (payload: never, context: CallContext) => unknown>;

export function serveWorker<Init>(setup: (init: Init) => Promise<WorkerMethods> | WorkerMethods): void {
  const port = parentPort;
  if (!port) throw new Error('serveWorker must run inside a worker thread');

  const start = async () => {
    let methods: WorkerMethods;
    try {
      methods = await setup(workerData as Init);
    } catch (error) {
      const failed: WorkerStartup = { type: 'failed', error: toWireError(error) };
      port.postMessage(failed);
      return;
    }
    /** One controller per call still running here, by request id. */
    const running = new Map<number, AbortController>();

    const answer = async (request: WorkerCall) => {
      const controller = new AbortController();
      running.set(request.id, controller);
      let response: WorkerResponse;
      let transfer: ArrayBuffer[] = [];
      try {
        const method = Object.hasOwn(methods, request.method) ? methods[request.method] : undefined;
        if (!method) throw new Error(`worker has no method "${request.method}"`);
        const result = await method(request.payload as never, { signal: controller.signal });
        if (result instanceof Transferable) {
          transfer = [...result.transfer];
          response = { id: request.id, ok: true, result: result.value };
        } else {
          response = { id: request.id, ok: true, result };
        }
      } catch (error) {
        response = { id: request.id, ok: false, error: toWireError(error) };
      } finally {
        running.delete(request.id);
      }
      // The client already answered a cancelled call (with its signal's reason) and forgot its id.
      if (!controller.signal.aborted) port.postMessage(response, transfer);
    };

    port.on('message', (request: WorkerRequest) => {
      if (request.type === 'cancel') running.get(request.id)?.abort(new Error(`call ${request.id} was cancelled by its caller`));
      else void answer(request);
    });
    const ready: WorkerStartup = { type: 'ready' };
    port.postMessage(ready);
  };
  void start();
}
