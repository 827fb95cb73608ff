/**
 * Who holds the realtime sessions: at most `maxSessions` at once, and at most
 * `maxSessionsPerKey` of them for one API key, so one key cannot take every slot.
 */
import { hashApiKey } from '../../auth/api-key.js';
import type { KeyPolicy } from '../../auth/key-store.js';
import type { RealtimeLimits } from '../../config/load-config.js';

export class SessionSlots {
  readonly #limits: Pick<RealtimeLimits, 'maxSessions' | 'maxSessionsPerKey'>;
  readonly #perKey = new Map<string, number>();
  #open = 0;

  constructor(limits: Pick<RealtimeLimits, 'maxSessions' | 'maxSessionsPerKey'>) {
    this.#limits = limits;
  }

  /** Which bound one more session of `holder` would pass, if any. */
  full(holder: string): 'server' | 'key' | undefined {
    if ((this.#perKey.get(holder) ?? 0) >= this.#limits.maxSessionsPerKey) return 'key';
    if (this.#open >= this.#limits.maxSessions) return 'server';
    return undefined;
  }

  /** Takes a slot for `holder` (check `full` first); the returned function gives it back, once. */
  take(holder: string): () => void {
    this.#open++;
    this.#perKey.set(holder, (this.#perKey.get(holder) ?? 0) + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#open--;
      const left = this.#perKey.get(holder)! - 1;
      if (left === 0) this.#perKey.delete(holder);
      else this.#perKey.set(holder, left);
    };
  }
}

/** Whose slots a session takes: a stored key by its id, a static key (all share one policy) by its digest. */
export function slotHolder(policy: KeyPolicy, key: string): string {
  return policy.id !== null ? `key:${policy.id}` : `static:${hashApiKey(key).toString('hex')}`;
}
