/**
 * The registry's record of models in memory (or on their way there), so that each model is loaded
 * once: concurrent first requests wait on the same load, and a failed load is forgotten so that
 * installing the model fixes it without a restart. It also keeps what outlives a residency: each
 * model's last use (GET /v1/models) and what it was measured to take (its next load's estimate).
 */
import type { ManifestEntry } from '../manifest.js';
import type { Residency } from '../model-catalog.js';
import type { Disposable } from '../types.js';
import { footprintBytes, type Footprint } from './memory-budget.js';

/** One model in memory (or on its way there). */
export interface Resident {
  readonly entry: ManifestEntry;
  state: 'loading' | 'loaded';
  model: Disposable | undefined;
  ready: Promise<Disposable>;
  /** Calls in flight. */
  busy: number;
  lastUsed: number;
  /** Bytes counted against the budget: `footprint`'s sum. */
  bytes: number;
  /** The estimate (an earlier residency's measures, else the files' size) until this one's are measured. */
  footprint: Footprint;
  /** Whether its first call has begun (the only one whose RSS growth is the warm-up's). */
  warmed: boolean;
}

export class Residents {
  readonly #now: () => number;
  readonly #residents = new Map<string, Resident>();
  /** Last use of each model, kept after it is unloaded. */
  readonly #lastUsed = new Map<string, number>();
  /** What each model was measured to take, kept after it is unloaded. */
  readonly #measured = new Map<string, Footprint>();

  constructor(now: () => number) {
    this.#now = now;
  }

  get(id: string): Resident | undefined {
    return this.#residents.get(id);
  }

  values(): Resident[] {
    return [...this.#residents.values()];
  }

  /**
   * The resident of `entry`, its load started by `start` (given the estimate: the last measure,
   * else `estimateBytes`) unless one is loading or loaded already.
   */
  async acquire(entry: ManifestEntry, estimateBytes: () => Promise<number>, start: (estimate: Footprint) => Resident): Promise<Resident> {
    const resident = this.#residents.get(entry.id);
    if (resident) return resident;
    const estimate = this.#measured.get(entry.id) ?? { load: await estimateBytes(), warmup: 0 };
    // Another request may have started the load while the estimate was read.
    return this.#residents.get(entry.id) ?? start(estimate);
  }

  /** Registers a resident now (in the caller's synchronous step) whose model `load` will give. */
  add(entry: ManifestEntry, estimate: Footprint, load: (resident: Resident) => Promise<Disposable>): Resident {
    const resident: Resident = {
      entry,
      state: 'loading',
      model: undefined,
      ready: undefined!,
      busy: 0,
      lastUsed: this.#now(),
      bytes: footprintBytes(estimate),
      footprint: estimate,
      warmed: false,
    };
    this.#residents.set(entry.id, resident);
    resident.ready = load(resident);
    resident.ready.then(
      (model) => {
        resident.model = model;
        resident.state = 'loaded';
      },
      () => this.remove(resident),
    );
    return resident;
  }

  /** Takes `resident` out (if it is still the one of its id): it no longer counts. */
  remove(resident: Resident): void {
    if (this.#residents.get(resident.entry.id) === resident) this.#residents.delete(resident.entry.id);
  }

  /** Takes every resident out, answering them. */
  removeAll(): Resident[] {
    const all = this.values();
    this.#residents.clear();
    return all;
  }

  touch(resident: Resident): void {
    resident.lastUsed = this.#now();
    this.#lastUsed.set(resident.entry.id, resident.lastUsed);
  }

  /** Counts `resident` at `footprint` from now on, and for its next load. */
  recount(resident: Resident, footprint: Footprint): void {
    resident.footprint = footprint;
    resident.bytes = footprintBytes(footprint);
    this.#measured.set(resident.entry.id, footprint);
  }

  /** What GET /v1/models shows of `id`; undefined for a model never loaded. */
  residency(id: string): Residency | undefined {
    const resident = this.#residents.get(id);
    const measured = this.#measured.get(id);
    const lastUsed = this.#lastUsed.get(id);
    if (!resident && measured === undefined && lastUsed === undefined) return undefined;
    return { state: resident?.state ?? 'unloaded', memoryBytes: resident?.bytes ?? (measured ? footprintBytes(measured) : null), lastUsed };
  }
}
