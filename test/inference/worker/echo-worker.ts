/** A tiny worker used by worker-client.test.ts to exercise the seam. */
import { AppError, UndecodableAudioError } from '../../../src/errors.js';
import { serveWorker } from '../../../src/inference/worker/serve-worker.js';
import { withTransfer } from '../../../src/inference/worker/worker-protocol.js';

/** An AppError subclass that src/errors.ts does not export. */
class LocalTooLongError extends AppError {
  override name = 'LocalTooLongError';
  constructor() {
    super(413, 'payload_too_large', 'too long here');
  }
}

interface Init {
  failSetup?: boolean;
  scale: number;
}

serveWorker<Init>((init) => {
  if (init.failSetup) throw new UndecodableAudioError('setup refused');
  return {
    echo: (payload: unknown) => payload,
    scale: (samples: Float32Array) => {
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
    slow: (ms: number) => new Promise((resolve) => setTimeout(() => resolve(ms), ms)),
    /** Ends the worker thread, as a fatal error in native code would. */
    exit: (code: number) => process.exit(code),
  };
});
