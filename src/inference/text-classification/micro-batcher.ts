/**
 * Collects concurrent requests to one model into a single batched forward pass.
 *
 * A batch starts when `maxBatchSize` items are waiting or `maxWaitMs` after the first one arrived,
 * whichever is first. Only one batch runs at a time per batcher: ONNX Runtime already spreads one
 * forward pass over the intra-op threads, so a second concurrent pass would only fight for the same
 * cores. Items that arrive while a batch runs have already waited, so the next batch starts as soon
 * as the running one ends.
 */

export interface MicroBatcherOptions {
  /** Most items handed to `run` at once. */
  maxBatchSize: number;
  /** How long the first waiting item may wait for company, when no batch is running. */
  maxWaitMs: number;
}

/** Runs one batch; must return exactly one output per input, in order. */
export type BatchRunner<I, O> = (items: I[]) => Promise<O[]>;

interface Pending<I, O> {
  item: I;
  resolve(output: O): void;
  reject(error: unknown): void;
}

export class MicroBatcher<I, O> {
  readonly #run: BatchRunner<I, O>;
  readonly #options: MicroBatcherOptions;
  #queue: Pending<I, O>[] = [];
  #timer: NodeJS.Timeout | undefined;
  #running = false;

  constructor(run: BatchRunner<I, O>, options: MicroBatcherOptions) {
    if (!Number.isInteger(options.maxBatchSize) || options.maxBatchSize < 1) {
      throw new RangeError(`maxBatchSize must be a positive integer, got ${options.maxBatchSize}`);
    }
    if (!(options.maxWaitMs >= 0)) throw new RangeError(`maxWaitMs must be >= 0, got ${options.maxWaitMs}`);
    this.#run = run;
    this.#options = { ...options };
  }

  /** Items waiting for a batch (not counting the one running). */
  get pending(): number {
    return this.#queue.length;
  }

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#running) return; // the running batch starts the next one when it ends
    if (this.#queue.length >= this.#options.maxBatchSize) {
      this.#startNow();
    } else if (this.#timer === undefined) {
      this.#timer = setTimeout(() => this.#flush(), this.#options.maxWaitMs);
    }
  }

  #startNow(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    void this.#flush();
  }

  async #flush(): Promise<void> {
    this.#timer = undefined;
    if (this.#running || this.#queue.length === 0) return;
    const batch = this.#queue.splice(0, this.#options.maxBatchSize);
    this.#running = true;
    try {
      const outputs = await this.#run(batch.map((pending) => pending.item));
      if (outputs.length !== batch.length) {
        throw new Error(`batch runner returned ${outputs.length} outputs for ${batch.length} inputs`);
      }
      batch.forEach((pending, index) => pending.resolve(outputs[index] as O));
    } catch (error) {
      for (const pending of batch) pending.reject(error);
    } finally {
      this.#running = false;
      if (this.#queue.length > 0) this.#startNow();
    }
  }
}
