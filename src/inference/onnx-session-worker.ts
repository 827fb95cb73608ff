/**
 * Worker thread that owns one onnxruntime-node session (onnx-session-thread.ts): runs one call
 * at a time, in arrival order, and moves the outputs back to the caller.
 */
import * as ort from 'onnxruntime-node';
import type { OnnxSessionApi, OnnxSessionWorkerInit, WireTensor } from './onnx-session-thread-protocol.js';
import { serveWorker } from './worker/serve-worker.js';
import { lowerThreadPriority } from './worker/thread-priority.js';
import { withTransfer } from './worker/worker-protocol.js';

serveWorker<OnnxSessionApi, OnnxSessionWorkerInit>(async (init) => {
  lowerThreadPriority(init.nice);
  const session = await ort.InferenceSession.create(init.onnxFile, init.sessionOptions as ort.InferenceSession.SessionOptions);
  return {
    names: async () => ({ inputNames: [...session.inputNames], outputNames: [...session.outputNames] }),
    run: ({ feeds, fetches }, { serial }) =>
      serial(async () => {
        const inputs = Object.fromEntries(
          Object.entries(feeds).map(([name, tensor]) => [name, new ort.Tensor(tensor.type as 'float32', tensor.data as Float32Array, tensor.dims)]),
        );
        const outputs = await (fetches ? session.run(inputs, fetches as string[]) : session.run(inputs));
        const wire: Record<string, WireTensor> = {};
        const moved = new Set<ArrayBuffer>();
        for (const [name, tensor] of Object.entries(outputs)) {
          const data = tensor.data as ArrayBufferView;
          wire[name] = { type: tensor.type, data, dims: tensor.dims };
          moved.add(data.buffer as ArrayBuffer);
        }
        return withTransfer(wire, [...moved]);
      }),
    dispose: () => session.release(),
  };
});
