/**
 * Runs jobs one at a time, in order. A job whose signal aborts while it waits is dropped: its
 * promise rejects with the signal's reason at once and the job never starts, so a cancelled
 * request gives its place to the next one instead of running for nobody.
 */
import { abortable } from '../abortable.js';

export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(job: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const turn = this.#tail.then(() => startUnlessAborted(job, signal));
    this.#tail = turn.catch(() => undefined);
    return abortable(turn, signal);
  }

  /** Resolves once every job queued so far has finished or been dropped. */
  async idle(): Promise<void> {
    await this.#tail;
  }
}

async function startUnlessAborted<T>(job: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  // One event-loop turn first: in a worker thread, a cancel message that arrived while the
  // previous job ran synchronously (ONNX Runtime blocks the thread) is only delivered then.
  if (signal) await new Promise((resolve) => setImmediate(resolve));
  signal?.throwIfAborted();
  return job();
}
