/**
 * Picks where a lone request (one text, nothing else running) is computed: on the solo session,
 * whose intra-op threads use every core, or on a one-thread session. On free cores the solo session
 * is faster; when other processes keep the cores busy its threads wait on each other and it becomes
 * the slower one, by more than it gains when the cores are free (docs/benchmarks.md, "Text
 * classification and translation"). Which case holds changes with the machine's load, so the choice
 * follows measured latency: a moving average per side, the faster side taken, and now and then
 * two lone requests sent to the other side to keep its average current, of which only the second
 * counts: the first after a switch runs with the other side's weights in the CPU cache and its
 * threads asleep, slower than that side runs when in use (measured: up to ~1.5x), which would keep
 * the side in use looking faster whatever the load. A side's first run is not counted either: it
 * includes the session's one-time set-up.
 *
 * Exploring costs the explored request the slower side's time (about 1.5x on free cores), so while
 * explorations keep finding the other side clearly slower, they grow rarer, from one in
 * EXPLORE_EVERY up to one in MAX_EXPLORE_EVERY; a change of the faster side brings them back to
 * EXPLORE_EVERY.
 * A change of load is still seen at once on the side in use, whose average every request updates.
 * On the side in use, one run counts at most SPIKE_CAP times its side's average, so a single stall (a
 * GC pause, another process taking the core) does not flip the choice; a few in a row, a real change,
 * do. An exploration's counted run replaces the explored side's average, which is stale.
 */

export type LoneRunSide = 'solo' | 'single-thread';

/** The first explorations: after this many lone requests, the side believed slower gets two. */
export const EXPLORE_EVERY = 32;
/** The rarest explorations, after they kept confirming the same faster side. */
export const MAX_EXPLORE_EVERY = 512;
/** Weight of the newest latency in a side's moving average. */
const SMOOTHING = 0.2;
/** Explorations grow rarer only while the explored side's average is at least this many times the other's. */
const CLEAR_LEAD = 1.2;
/** A run counts as at most this many times its side's average. */
const SPIKE_CAP = 2;

export class LoneRunChooser {
  readonly #averageMs: Record<LoneRunSide, number | undefined> = { solo: undefined, 'single-thread': undefined };
  readonly #warmedUp = new Set<LoneRunSide>();
  /** Lone requests since the last exploration, and how many there are to be between two. */
  #sinceExplore = 0;
  #exploreEvery = EXPLORE_EVERY;
  #lastFaster: LoneRunSide | undefined;
  /** The side being explored, until its counted run is in; and whether its uncounted first run is still to come. */
  #explored: LoneRunSide | undefined;
  #explorationWarmUp = false;

  choose(): LoneRunSide {
    const faster = this.#faster();
    if (faster === undefined) return this.#averageMs.solo === undefined ? 'solo' : 'single-thread';
    if (faster !== this.#lastFaster) {
      // The side in use became the slower one: the other side's average is old, look again soon.
      this.#lastFaster = faster;
      this.#exploreEvery = EXPLORE_EVERY;
      this.#sinceExplore = 0;
    }
    if (this.#explored !== undefined) return this.#explored;
    if (++this.#sinceExplore < this.#exploreEvery) return faster;
    this.#sinceExplore = 0;
    this.#explored = other(faster);
    this.#explorationWarmUp = true;
    return this.#explored;
  }

  /** A lone request's round trip on `side`, in milliseconds. */
  record(side: LoneRunSide, ms: number): void {
    if (!this.#warmedUp.has(side)) {
      this.#warmedUp.add(side);
      return;
    }
    if (side === this.#explored && this.#explorationWarmUp) {
      this.#explorationWarmUp = false;
      return;
    }
    const average = this.#averageMs[side];
    // An explored side's average is as old as its last exploration: its run now replaces it. Smoothed
    // instead, one slow early run kept the solo session unused for ~1,000 lone requests while the
    // explorations backed off (docs/benchmarks.md, "Text classification").
    const fresh = average === undefined || side === this.#explored;
    this.#averageMs[side] = fresh ? ms : average + SMOOTHING * (Math.min(ms, SPIKE_CAP * average) - average);
    if (side === this.#explored) {
      // Explore less often while the explored side stays clearly slower (a flip resets in choose).
      const otherMs = this.#averageMs[other(side)] as number;
      if ((this.#averageMs[side] as number) >= CLEAR_LEAD * otherMs) this.#exploreEvery = Math.min(2 * this.#exploreEvery, MAX_EXPLORE_EVERY);
      this.#explored = undefined;
    }
  }

  #faster(): LoneRunSide | undefined {
    const solo = this.#averageMs.solo;
    const single = this.#averageMs['single-thread'];
    if (solo === undefined || single === undefined) return undefined;
    return solo <= single ? 'solo' : 'single-thread';
  }
}

function other(side: LoneRunSide): LoneRunSide {
  return side === 'solo' ? 'single-thread' : 'solo';
}
