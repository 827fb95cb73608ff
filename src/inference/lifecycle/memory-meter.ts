/**
 * What a model takes, measured as the growth of the one process RSS around its load and around its
 * first call (ONNX arenas and caches grow then). The process has one RSS for everything that runs in
 * it, so a growth is a model's own only when nothing else ran at the same time: this meter counts
 * the loads and calls in flight and answers no figure for one that overlapped another.
 */
export class MemoryMeter {
  /** Process RSS; null: nothing is measured (tests), every measure answers undefined. */
  readonly #rss: (() => number) | null;
  /** Loads running now, and whether one overlapped a load or call since they last all ended. */
  #loadsRunning = 0;
  #loadsOverlapped = false;
  /** Calls in flight over all models, and a count of every call and load started (to see if one ran alone). */
  #callsRunning = 0;
  #activity = 0;

  constructor(rss: (() => number) | null) {
    this.#rss = rss;
  }

  /**
   * Runs `load`, and answers the RSS it added when no other load or call overlapped it (undefined
   * otherwise, or when nothing is measured). A failed load rejects as `load` did.
   */
  async measureLoad<T>(load: () => Promise<T>): Promise<{ value: T; growth: number | undefined }> {
    const before = this.#rss?.();
    this.#activity++;
    if (this.#loadsRunning++ > 0 || this.#callsRunning > 0) this.#loadsOverlapped = true;
    let value: T;
    try {
      value = await load();
    } finally {
      this.#loadsRunning--;
    }
    // Loads and calls at the same time grow the one RSS together, and its growth cannot be split
    // among them: an overlapped load answers no figure rather than a share that may be another's.
    const growth = before !== undefined && this.#rss && !this.#loadsOverlapped ? Math.max(0, this.#rss() - before) : undefined;
    if (this.#loadsRunning === 0) this.#loadsOverlapped = false;
    return { value, growth };
  }

  /**
   * A call starts; the returned function ends it and answers the RSS the call added when `first`
   * (a model's first call: a later one finds the arenas grown and would measure 0) and nothing else
   * ran while it did, else undefined.
   */
  beginCall(first: boolean): () => number | undefined {
    const alone = this.#rss !== null && first && this.#callsRunning === 0 && this.#loadsRunning === 0;
    const before = alone ? this.#rss!() : undefined;
    this.#callsRunning++;
    if (this.#loadsRunning > 0) this.#loadsOverlapped = true;
    const started = ++this.#activity;
    return () => {
      this.#callsRunning--;
      return before !== undefined && this.#activity === started ? this.#rss!() - before : undefined;
    };
  }
}
