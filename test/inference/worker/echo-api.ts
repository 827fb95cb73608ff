/** The Api of echo-worker.ts, the stand-in worker of the seam's tests. */
import type { CallContext } from '../../../src/inference/worker/worker-api.js';
import { workerModule } from '../../../src/inference/worker/worker-api.js';

export interface EchoInit {
  failSetup?: boolean;
  scale: number;
}

/** What the cancellation and queue methods saw, for a test to ask. */
export interface Seen {
  calls: number;
  cancelled: number;
  started: string[];
  disposed: boolean;
}

export interface EchoApi {
  echo(value: unknown): Promise<unknown>;
  scale(samples: Float32Array): Promise<{ samples: Float32Array; receivedBytes: number }>;
  failTyped(): Promise<never>;
  failLocal(): Promise<never>;
  failPlain(): Promise<never>;
  slow(ms: number): Promise<number>;
  /** Runs until its call is cancelled (or 10 s pass), counting the cancellation. */
  untilCancelled(payload: undefined, context: CallContext): Promise<string>;
  /** Queued one at a time on the worker's queue, each job busy for `ms`; records which jobs started. */
  queued(job: { label: string; ms: number }, context: CallContext): Promise<string>;
  /** Blocks the thread for `ms` without yielding, as a long native call would. */
  block(ms: number): Promise<number>;
  seen(): Promise<Seen>;
  /** Reports 1, 2, …, `n` as progress, then answers `n`. */
  countTo(n: number, context: CallContext<number>): Promise<number>;
  /** Ends the worker thread, as a fatal error in native code would. */
  exit(code: number): Promise<never>;
}

export const ECHO_WORKER = workerModule<EchoApi, EchoInit>(import.meta.url, './echo-worker');
