/**
 * MODELS_MAX_MEMORY's arithmetic, apart from the registry that applies it: what a model counts
 * against the budget, and which models to unload so that the count fits.
 *
 * The registry asks before a load (with the load's estimate as `incoming`) and again each time a
 * count grows (a load measured, a first call's growth added) and each time a call ends, because an
 * estimate can be far below what the model then takes: the check at load time alone let the
 * measured total pass the budget and stay there.
 */

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

export interface EvictionPlan<T> {
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
