/**
 * MODELS_MAX_MEMORY: what a model counts against the budget, which models to unload so that the
 * count fits (planEviction, plain arithmetic), and MemoryBudget, which the registry asks.
 *
 * The registry asks before a load (with the load's estimate as `incoming`) and again each time a
 * count grows (a load measured, a first call's growth added) and each time a call ends, because an
 * estimate can be far below what the model then takes: the check at load time alone let the
 * measured total pass the budget and stay there.
 */
import { ModelMemoryExhaustedError } from '../../errors.js';

/** What a model was measured (or guessed) to take. */
export interface Footprint {
  /** The RSS growth of its load (before it is measured: the size of its files). */
  load: number;
  /** The RSS growth of its first call (ONNX arenas, caches); 0 until one was measured. */
  warmup: number;
}

export const footprintBytes = (footprint: Footprint): number => footprint.load + footprint.warmup;

/** What the budget needs to know of a model in memory (the registry's Resident is one). */
export interface Budgeted {
  readonly bytes: number;
  readonly lastUsed: number;
  readonly state: 'loading' | 'loaded';
  /** Calls in flight. */
  readonly busy: number;
}

interface EvictionPlan<T> {
  /** Idle models to unload, least recently used first. */
  victims: T[];
  /** Bytes still counted once they are gone (without `incoming`). */
  used: number;
  /** Whether `used + incoming` fits the budget. */
  fits: boolean;
}

/**
 * The fewest idle models, least recently used first, whose unloading lets `incoming` more bytes fit
 * `budget`. A model still loading or with a call in flight is never chosen, so the plan may not fit.
 */
export function planEviction<T extends Budgeted>(residents: Iterable<T>, budget: number, incoming = 0): EvictionPlan<T> {
  const all = [...residents];
  let used = all.reduce((sum, resident) => sum + resident.bytes, 0);
  const idle = all.filter((resident) => resident.state === 'loaded' && resident.busy === 0).sort((a, b) => a.lastUsed - b.lastUsed);
  const victims: T[] = [];
  while (used + incoming > budget && idle.length > 0) {
    const victim = idle.shift()!;
    victims.push(victim);
    used -= victim.bytes;
  }
  return { victims, used, fits: used + incoming <= budget };
}

/**
 * Applies the budget (none when `maxBytes` is undefined) to the models in memory. `unload` must
 * take its model out of the count in its synchronous first step, so that the next plan does not
 * pick it again.
 */
export class MemoryBudget<T extends Budgeted> {
  readonly #maxBytes: number | undefined;
  readonly #unload: (victim: T) => Promise<void>;
  /** Unloads the budget started on its own (`settled` waits for them). */
  readonly #evicting = new Set<Promise<void>>();

  constructor(maxBytes: number | undefined, unload: (victim: T) => Promise<void>) {
    this.#maxBytes = maxBytes;
    this.#unload = unload;
  }

  /**
   * The idle models to unload, least recently used first, so that `bytes` more for model `id` fit.
   * The caller takes them out of the count at once (their unload follows). Throws 503 when busy
   * models leave no room.
   */
  makeRoom(residents: Iterable<T>, id: string, bytes: number): T[] {
    const budget = this.#maxBytes;
    if (budget === undefined) return [];
    const { victims, used, fits } = planEviction(residents, budget, bytes);
    if (!fits) throw new ModelMemoryExhaustedError(id, bytes, budget, used);
    return victims;
  }

  /**
   * Unloads idle models, least recently used first, until the count fits the budget. A model still
   * loading is spared (its caller waits for it), as is one answering; if those alone pass the
   * budget, makeRoom refuses every load until they are done, and each call's end tries again. A
   * model that has just answered is idle: it goes too if the others are busy, rather than leave the
   * budget passed for as long as they run.
   */
  hold(residents: Iterable<T>): void {
    const budget = this.#maxBytes;
    if (budget === undefined) return;
    for (const victim of planEviction(residents, budget).victims) {
      const unloading = this.#unload(victim).catch(() => {});
      this.#evicting.add(unloading);
      void unloading.finally(() => this.#evicting.delete(unloading));
    }
  }

  /** Settles once the unloads `hold` started have. */
  async settled(): Promise<void> {
    await Promise.allSettled(this.#evicting);
  }
}
