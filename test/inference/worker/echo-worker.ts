/** A tiny worker used by the seam's tests (worker-client, model-worker). */
import { AppError, UndecodableAudioError } from '../../../src/errors.js';
import { serveWorker } from '../../../src/inference/worker/serve-worker.js';
import { withTransfer } from '../../../src/inference/worker/worker-protocol.js';
import type { EchoApi, EchoInit, Seen } from './echo-api.js';

/** An AppError subclass that src/errors.ts does not export. */
class LocalTooLongError extends AppError {
  override name = 'LocalTooLongError';
  constructor() {
    super(413, 'payload_too_large', 'too long here');
  }
}

serveWorker<EchoApi, EchoInit>((init) => {
  if (init.failSetup) throw new UndecodableAudioError('setup refused');
  const seen: Seen = { calls: 0, cancelled: 0, started: [], disposed: false };
  return {
    echo: (value) => value,
    scale: (samples) => {
      const out = new Float32Array(samples.length);
      for (let i = 0; i < samples.length; i++) out[i] = samples[i]! * init.scale;
      return withTransfer({ samples: out, receivedBytes: samples.byteLength }, [out.buffer]);
    },
    failTyped: () => {
      throw new UndecodableAudioError('bad bytes');
    },
    failLocal: () => {
      throw new LocalTooLongError();
    },
    failPlain: async () => {
      throw new TypeError('boom');
    },
    slow: (ms) => new Promise((resolve) => setTimeout(() => resolve(ms), ms)),
    untilCancelled: (_payload, { signal }) => {
      seen.calls++;
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve('never cancelled'), 10_000);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          seen.cancelled++;
          resolve('cancelled');
        });
      });
    },
    queued: ({ label, ms }, { serial }) =>
      serial(async () => {
        seen.started.push(label);
        await new Promise((resolve) => setTimeout(resolve, ms));
        return label;
      }),
    block: (ms) => {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
      return ms;
    },
    seen: () => seen,
    countTo: (n, { progress }) => {
      for (let count = 1; count <= n; count++) progress(count);
      return n;
    },
    exit: (code) => process.exit(code),
    dispose: () => {
      seen.disposed = true;
    },
  };
});
