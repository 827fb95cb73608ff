/**
 * Collects concurrent requests to one model into a single batched forward pass.
 *
 * A batch starts when `maxBatchSize` items are waiting or `maxWaitMs` after the first one arrived,
 * whichever is first. At most `maxInFlight` batches run at once (one per model worker); when
 * several slots are free the waiting items are split evenly between them, so two workers each get
 * half of a burst instead of one worker getting all of it while the other idles. Items that arrive
 * while every slot is busy have already waited, so they start as soon as a slot frees up.
 *
 * An item whose signal aborts (its client went away) rejects at once with the signal's reason:
 * while waiting it leaves the queue, so it takes no place in a batch; in a running batch only
 * its output is dropped, since the other items of that batch still want theirs.
 *
 * Items submitted with the same `group` (one request's texts) take turns with other groups: a
 * batch is filled one item per group, round robin, so a request of 2048 texts does not make a
 * one-text request that arrives after it wait for all 2048; it shares each batch with them.
 * Items without a group are each a group of their own, which is arrival order. Above groups,
 * requesters (API keys, src/requester.ts, as current when an item is submitted)
 * take turns the same way, so one key's many concurrent requests share batches with another key's
 * one request as one request would, not one per request.
 *
 * A batch's lines (background requesters, requester.ts) step aside: while anyone else's item
 * waits, a batch takes none of theirs. For `reserveMs` after another requester's item arrived,
 * theirs run in batches of at most `maxBackgroundBatchSize` and leave one of several slots free
 * for the next (with nobody else about, they run in full batches: a batch's throughput); and `foregroundSlots` more slots are for the others'
 * items alone: a request arriving while the batch's lines fill every slot starts at once on one
 * of those (the model's solo session, batch-model.ts), or without one after one short run.
 */
import { currentRequester, isBackground } from '../../requester.js';

export interface MicroBatcherOptions {
  /** Most items handed to `run` at once. */
  maxBatchSize: number;
  /**
   * How long the first waiting item may wait for company when a worker is free; 0 waits only for
   * the rest of the current event-loop turn. Under load batches form anyway, from the items that
   * queue while every worker is busy.
   */
  maxWaitMs: number;
  /** Batches allowed to run at the same time (default 1). */
  maxInFlight?: number;
  /** Most items of background requesters in one batch within `reserveMs` of another's item (default maxBatchSize). */
  maxBackgroundBatchSize?: number;
  /** Slots beyond `maxInFlight` that only items of other requesters may take (default 0). */
  foregroundSlots?: number;
  /** How long after another requester's item background items leave one slot free (ms, default 0). */
  reserveMs?: number;
}

/** Runs one batch; must return exactly one output per input, in order. */
type BatchRunner<I, O> = (items: I[]) => Promise<O[]>;

interface Pending<I, O> {
  item: I;
  resolve(output: O): void;
  reject(error: unknown): void;
}

interface SubmitOptions {
  /** Aborts when the caller no longer wants the output. */
  signal?: AbortSignal;
  /** Items of one group (any object: a request's own token) take turns with other groups' items. */
  group?: object;
}

export class MicroBatcher<I, O> {
  readonly #run: BatchRunner<I, O>;
  readonly #options: Required<MicroBatcherOptions>;
  /** Waiting items by requester, then by group; each in the order they take their next turn. */
  readonly #queue = new Map<string, Map<object, Pending<I, O>[]>>();
  #waiting = 0;
  #backgroundInFlight = 0;
  #lastForeground = Number.NEGATIVE_INFINITY;
  #timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  #inFlight = 0;

  constructor(run: BatchRunner<I, O>, options: MicroBatcherOptions) {
    if (!Number.isInteger(options.maxBatchSize) || options.maxBatchSize < 1) {
      throw new RangeError(`maxBatchSize must be a positive integer, got ${options.maxBatchSize}`);
    }
    if (!(options.maxWaitMs >= 0)) throw new RangeError(`maxWaitMs must be >= 0, got ${options.maxWaitMs}`);
    const maxInFlight = options.maxInFlight ?? 1;
    if (!Number.isInteger(maxInFlight) || maxInFlight < 1) {
      throw new RangeError(`maxInFlight must be a positive integer, got ${maxInFlight}`);
    }
    this.#run = run;
    this.#options = { maxBackgroundBatchSize: options.maxBatchSize, foregroundSlots: 0, reserveMs: 0, ...options, maxInFlight };
  }

  submit(item: I, options: SubmitOptions = {}): Promise<O> {
    const { signal, group = {} } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<O>((resolve, reject) => {
      const requester = currentRequester() ?? '';
      if (!isBackground(requester)) this.#lastForeground = performance.now();
      const onAbort = () => {
        this.#remove(requester, group, pending);
        reject(signal?.reason);
      };
      const stopListening = () => signal?.removeEventListener('abort', onAbort);
      const pending: Pending<I, O> = {
        item,
        resolve: (output) => (stopListening(), resolve(output)),
        reject: (error) => (stopListening(), reject(error)),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      let groups = this.#queue.get(requester);
      if (!groups) this.#queue.set(requester, (groups = new Map()));
      const items = groups.get(group);
      if (items) items.push(pending);
      else groups.set(group, [pending]);
      this.#waiting++;
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#inFlight >= this.#slots()) return; // a finishing batch starts the next one
    if (this.#waiting >= this.#options.maxBatchSize) {
      this.#startNow();
    } else if (this.#timer === undefined) {
      // 0 ms still gathers everything submitted in this turn of the event loop (e.g. all the
      // clients whose answers arrived together), without the >= 1 ms floor of setTimeout.
      this.#timer = this.#options.maxWaitMs === 0 ? setImmediate(() => this.#flush()) : setTimeout(() => this.#flush(), this.#options.maxWaitMs);
    }
  }

  #startNow(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer as NodeJS.Timeout);
      clearImmediate(this.#timer as NodeJS.Immediate);
    }
    this.#timer = undefined;
    this.#flush();
  }

  #flush(): void {
    this.#timer = undefined;
    while (this.#inFlight < this.#slots() && this.#waiting > 0) {
      const freeSlots = this.#slots() - this.#inFlight;
      const size = Math.min(this.#options.maxBatchSize, Math.ceil(this.#waiting / freeSlots));
      const batch = this.#take(size);
      if (batch.items.length === 0) break; // only background items wait, and their slots are taken
      void this.#runBatch(batch.items, batch.background);
    }
  }

  /** The slots open now: the foreground ones too while an item of a non-background requester waits. */
  #slots(): number {
    return this.#options.maxInFlight + (this.#foregroundWaiting() ? this.#options.foregroundSlots : 0);
  }

  #foregroundWaiting(): boolean {
    for (const requester of this.#queue.keys()) if (!isBackground(requester)) return true;
    return false;
  }

  /**
   * Up to `size` waiting items, one per requester in turn and, within its turn, one of its groups
   * in turn; a requester or group that still waits goes to the back.
   */
  #take(size: number): { items: Pending<I, O>[]; background: boolean } {
    const batch: Pending<I, O>[] = [];
    const foreground = this.#foregroundWaiting();
    // Someone sent a request lately: they may send more, so a batch's lines run short and leave a slot free.
    const recent = performance.now() - this.#lastForeground < this.#options.reserveMs;
    const reserve = this.#options.maxInFlight > 1 && recent;
    const backgroundSlots = this.#options.maxInFlight - (reserve ? 1 : 0);
    if (!foreground && (this.#inFlight >= this.#options.maxInFlight || this.#backgroundInFlight >= backgroundSlots)) {
      return { items: batch, background: true };
    }
    const limit = foreground || !recent ? size : Math.min(size, this.#options.maxBackgroundBatchSize);
    while (batch.length < limit) {
      const next = foreground ? [...this.#queue].find(([requester]) => !isBackground(requester)) : this.#queue.entries().next().value;
      if (next === undefined) break;
      const [requester, groups] = next;
      const [group, items] = groups.entries().next().value!;
      batch.push(items.shift()!);
      groups.delete(group);
      if (items.length > 0) groups.set(group, items);
      this.#queue.delete(requester);
      if (groups.size > 0) this.#queue.set(requester, groups);
    }
    this.#waiting -= batch.length;
    return { items: batch, background: !foreground };
  }

  #remove(requester: string, group: object, pending: Pending<I, O>): void {
    const groups = this.#queue.get(requester);
    const items = groups?.get(group);
    const index = items?.indexOf(pending) ?? -1;
    if (index < 0) return;
    items!.splice(index, 1);
    if (items!.length === 0) groups!.delete(group);
    if (groups!.size === 0) this.#queue.delete(requester);
    this.#waiting--;
  }

  async #runBatch(batch: Pending<I, O>[], background: boolean): Promise<void> {
    this.#inFlight++;
    if (background) this.#backgroundInFlight++;
    try {
      const outputs = await this.#run(batch.map((pending) => pending.item));
      if (outputs.length !== batch.length) {
        throw new Error(`batch runner returned ${outputs.length} outputs for ${batch.length} inputs`);
      }
      batch.forEach((pending, index) => pending.resolve(outputs[index] as O));
    } catch (error) {
      for (const pending of batch) pending.reject(error);
    } finally {
      this.#inFlight--;
      if (background) this.#backgroundInFlight--;
      if (this.#waiting > 0) this.#startNow();
    }
  }
}
