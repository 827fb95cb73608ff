/**
 * The worker side of the seam. A worker module calls `serveWorker(setup)` once; `setup`
 * receives the client's `init` value and returns the methods the client may call.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { toWireError } from './wire-error.js';
import { Transferable, type WorkerRequest, type WorkerResponse, type WorkerStartup } from './worker-protocol.js';

export type WorkerMethods = Record<string, (payload: never) => unknown>;

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
    port.on('message', async (request: WorkerRequest) => {
      let response: WorkerResponse;
      let transfer: ArrayBuffer[] = [];
      try {
        const method = Object.hasOwn(methods, request.method) ? methods[request.method] : undefined;
        if (!method) throw new Error(`worker has no method "${request.method}"`);
        const result = await method(request.payload as never);
        if (result instanceof Transferable) {
          transfer = [...result.transfer];
          response = { id: request.id, ok: true, result: result.value };
        } else {
          response = { id: request.id, ok: true, result };
        }
      } catch (error) {
        response = { id: request.id, ok: false, error: toWireError(error) };
      }
      port.postMessage(response, transfer);
    });
    const ready: WorkerStartup = { type: 'ready' };
    port.postMessage(ready);
  };
  void start();
}
