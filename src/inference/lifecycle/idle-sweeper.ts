/**
 * MODEL_IDLE_TTL: a model unused for its time-out (a manifest entry's `idleTtl` wins over the
 * server's) is unloaded, so that a model asked for once does not hold its memory for good. A timer
 * looks for such models; none runs when no time-out is set.
 */
import type { ManifestEntry } from '../manifest.js';

/** What the sweeper needs to know of a model in memory (the registry's Resident is one). */
interface Sweepable {
  readonly entry: Pick<ManifestEntry, 'idleTtl'>;
  readonly state: 'loading' | 'loaded';
  /** Calls in flight. */
  readonly busy: number;
  readonly lastUsed: number;
}

interface IdleSweeperOptions {
  /** Seconds a model may stay unused (MODEL_IDLE_TTL); -1: never. */
  idleTtlSeconds: number;
  /** The manifest's entries, whose own time-outs set how often the timer runs. */
  entries: readonly ManifestEntry[];
  /** How often idle models are looked for (default: a quarter of the shortest time-out, 1–60 s). */
  intervalMs: number | undefined;
  /** Unloads the expired models; the timer calls it. */
  sweep: () => Promise<void>;
}

export class IdleSweeper {
  readonly #idleTtlSeconds: number;
  readonly #timer: NodeJS.Timeout | undefined;

  constructor(options: IdleSweeperOptions) {
    this.#idleTtlSeconds = options.idleTtlSeconds;
    const ttls = [options.idleTtlSeconds, ...options.entries.map((entry) => entry.idleTtl ?? -1)].filter((ttl) => ttl >= 0);
    if (ttls.length > 0) {
      const interval = options.intervalMs ?? Math.min(60_000, Math.max(1_000, (Math.min(...ttls) * 1000) / 4));
      // A worker that fails to free its sessions is terminated by its own dispose; nothing to add here.
      this.#timer = setInterval(() => void options.sweep().catch(() => {}), interval).unref();
    }
  }

  /** The loaded models without a call in flight whose time-out has passed at `now`. */
  expired<T extends Sweepable>(residents: Iterable<T>, now: number): T[] {
    return [...residents].filter((resident) => {
      const ttl = resident.entry.idleTtl ?? this.#idleTtlSeconds;
      return ttl >= 0 && resident.state === 'loaded' && resident.busy === 0 && now - resident.lastUsed >= ttl * 1000;
    });
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
