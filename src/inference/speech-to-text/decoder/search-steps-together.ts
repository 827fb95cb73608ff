/**
 * Several windows' searches (beam search or best-of sampling, whisper-search-decode.ts) stepping
 * together: each window runs its own search loop unchanged and asks for one step at a time; once
 * every window still searching has asked (or ended), one decoder run reads all their rows and each
 * window gets its own rows' logits back. A window that ends (its search done, or failed) leaves,
 * and the next run goes on without its rows, as the greedy lockstep batch drops a finished row.
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

  /** Window `group`'s next step, answered with its rows' logits once the shared run is done. */
  step(group: number, sources: readonly number[], tokens: readonly number[]): Promise<Float32Array[]> {
    if (this.#failure) return Promise.reject(this.#failure.error);
    return new Promise((resolve, reject) => {
      this.#asked[group] = { step: { sources, tokens }, resolve, reject };
      this.#runWhenAllAsked();
    });
  }

  /** Window `group` asks no more: its search is over. */
  leave(group: number): void {
    this.#live[group] = false;
    this.#runWhenAllAsked();
  }

  /**
   * Ends every window's search with `error`: one window's abort or failure stops the batch, as a
   * row's does in the greedy lockstep batch, rather than leaving the others to run on unheard.
   */
  fail(error: unknown): void {
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
