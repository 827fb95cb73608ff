/**
 * Several windows' searches (beam search or best-of sampling, whisper-search-decode.ts) stepping
 * together: each window runs its own search loop unchanged, inside `search`, and asks for one step
 * at a time; once every window still searching has asked (or ended), one decoder run reads all
 * their rows and each window gets its own rows' logits back. A window whose search returns or
 * throws leaves (`search` sees to it), and the next run goes on without its rows, as the greedy
 * lockstep batch drops a finished row. This is the inner of the two places that gather decodes;
 * the outer, long-form/decode-batcher.ts, gathers whole window decodes of concurrent long-form
 * decodes into one decodeBatch call, and its `join` likewise counts a caller out however it ends.
 */

/** One window's step: its next rows are copies of its current rows `sources`, each then reading `tokens[i]`. */
export interface GroupStep {
  sources: readonly number[];
  tokens: readonly number[];
}

/**
 * One decoder run for every window: `steps[group]` is that window's step, undefined for a window
 * that has left (its rows go). Returns each stepping window's rows' logits (undefined for those left).
 */
export type RunGroupSteps = (steps: readonly (GroupStep | undefined)[]) => Promise<(Float32Array[] | undefined)[]>;

interface Asked {
  step: GroupStep;
  resolve(logits: Float32Array[]): void;
  reject(error: unknown): void;
}

export class SearchStepsTogether {
  readonly #run: RunGroupSteps;
  readonly #asked: (Asked | undefined)[];
  readonly #live: boolean[];
  #running = false;
  /** A failed run, or a window's failure (an abort): every step asked, and every later one, fails with it. */
  #failure: { error: unknown } | undefined;

  constructor(groups: number, run: RunGroupSteps) {
    this.#run = run;
    this.#asked = new Array(groups).fill(undefined);
    this.#live = new Array(groups).fill(true);
  }

  /**
   * Runs window `group`'s search, given its `step`: the search is one of those a run waits for
   * until it returns or throws, whether it asked for a step or not, so no search can stall the
   * others by ending without saying so. Its failure (an abort) ends every window's search with it,
   * as a row's does in the greedy lockstep batch, rather than leaving the others to run on unheard.
   */
  async search<T>(group: number, run: (step: (sources: readonly number[], tokens: readonly number[]) => Promise<Float32Array[]>) => Promise<T>): Promise<T> {
    try {
      return await run((sources, tokens) => this.#step(group, sources, tokens));
    } catch (error) {
      this.#fail(error);
      throw error;
    } finally {
      this.#live[group] = false;
      this.#runWhenAllAsked();
    }
  }

  /** Window `group`'s next step, answered with its rows' logits once the shared run is done. */
  #step(group: number, sources: readonly number[], tokens: readonly number[]): Promise<Float32Array[]> {
    if (this.#failure) return Promise.reject(this.#failure.error);
    return new Promise((resolve, reject) => {
      this.#asked[group] = { step: { sources, tokens }, resolve, reject };
      this.#runWhenAllAsked();
    });
  }

  #fail(error: unknown): void {
    this.#failure ??= { error };
    this.#asked.forEach((asked, group) => {
      asked?.reject(this.#failure!.error);
      this.#asked[group] = undefined;
    });
  }

  #runWhenAllAsked(): void {
    if (this.#running || this.#failure) return;
    const waiting = this.#asked.filter((asked) => asked !== undefined).length;
    if (waiting === 0 || this.#live.some((live, group) => live && !this.#asked[group])) return;
    const asked = this.#asked.slice();
    this.#asked.fill(undefined);
    this.#running = true;
    this.#run(asked.map((one) => one?.step)).then(
      (logits) => {
        this.#running = false;
        asked.forEach((one, group) => one?.resolve(logits[group]!));
      },
      (error: unknown) => {
        this.#running = false;
        this.#failure ??= { error };
        for (const one of asked) one?.reject(error);
      },
    );
  }
}
