/**
 * Picks where a lone request (one text, nothing else running) is computed: on the solo session,
 * whose intra-op threads use every core, or on a one-thread session. On free cores the solo session
 * is faster; when other processes keep the cores busy its threads wait on each other and it becomes
 * the slower one, by more than it gains when the cores are free (docs/benchmarks.md, "Text
 * classification and translation"). Which case holds changes with the machine's load, so the choice
 * follows measured latency: a moving average per side, the faster side taken, and every
 * EXPLORE_EVERY-th lone request sent to the other side to keep its average current. A side's first
 * run is not counted: it includes the session's one-time set-up.
 */

export type LoneRunSide = 'solo' | 'single-thread';

/** One lone request in this many goes to the side currently believed slower. */
export const EXPLORE_EVERY = 32;
/** Weight of the newest latency in a side's moving average. */
const SMOOTHING = 0.2;

export class LoneRunChooser {
  readonly #averageMs: Record<LoneRunSide, number | undefined> = { solo: undefined, 'single-thread': undefined };
  readonly #warmedUp = new Set<LoneRunSide>();
  #choices = 0;

  choose(): LoneRunSide {
    const solo = this.#averageMs.solo;
    const single = this.#averageMs['single-thread'];
    if (solo === undefined) return 'solo';
    if (single === undefined) return 'single-thread';
    const faster: LoneRunSide = solo <= single ? 'solo' : 'single-thread';
    const explore = ++this.#choices % EXPLORE_EVERY === 0;
    if (!explore) return faster;
    return faster === 'solo' ? 'single-thread' : 'solo';
  }

  /** A lone request's round trip on `side`, in milliseconds. */
  record(side: LoneRunSide, ms: number): void {
    if (!this.#warmedUp.has(side)) {
      this.#warmedUp.add(side);
      return;
    }
    const average = this.#averageMs[side];
    this.#averageMs[side] = average === undefined ? ms : average + SMOOTHING * (ms - average);
  }
}
