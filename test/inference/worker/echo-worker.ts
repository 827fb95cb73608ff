/** A tiny worker used by worker-client.test.ts to exercise the seam. */
import { AppError, UndecodableAudioError } from '../../../src/errors.js';
import { serveWorker, type CallContext } from '../../../src/inference/worker/serve-worker.js';
import { SerialQueue } from '../../../src/inference/worker/serial-queue.js';
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
  /** What the cancellation methods below saw, for the test to ask. */
  const seen = { calls: 0, cancelled: 0, started: [] as string[] };
  const queue = new SerialQueue();
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
    /** Runs until its call is cancelled (or 10 s pass), counting the cancellation. */
    untilCancelled: (_payload: unknown, { signal }: CallContext) => {
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
    /** Queued one at a time, each job busy for `ms`; records which jobs started. */
    queued: ({ label, ms }: { label: string; ms: number }, { signal }: CallContext) =>
      queue.run(async () => {
        seen.started.push(label);
        await new Promise((resolve) => setTimeout(resolve, ms));
        return label;
      }, signal),
    seen: () => seen,
    /** Ends the worker thread, as a fatal error in native code would. */
    exit: (code: number) => process.exit(code),
  };
});
