/**
 * A worker that keeps onnxruntime busy in native code: it creates (and releases) sessions of one
 * ONNX file in a loop, or runs a session in a loop, so a test can stop it mid-call
 * (native-calls.test.ts).
 */
import * as ort from 'onnxruntime-node';
import { serveWorker } from '../../../src/inference/worker/serve-worker.js';
import type { SessionLoopApi, SessionLoopInit } from './session-loop-api.js';

serveWorker<SessionLoopApi, SessionLoopInit>((init) => ({
  loop: async () => {
    let loads = 0;
    const once = (): Promise<void> =>
      ort.InferenceSession.create(init.onnxFile).then(
        (session) => session.release(),
        () => {},
      );
    const forever = async () => {
      for (;;) {
        await once();
        loads++;
      }
    };
    void forever();
    // Answer once the loop is well under way.
    while (loads < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    return loads;
  },
  failRun: async () => {
    const session = await ort.InferenceSession.create(init.onnxFile);
    // A feed of the wrong type: onnxruntime's native run throws.
    return session.run({ [session.inputNames[0]!]: new ort.Tensor('int32', new Int32Array(1), [1]) }).then(() => 'ran');
  },
}));
