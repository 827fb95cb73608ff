import type { Kysely } from 'kysely';
import type { Database } from '../users/database.js';

export interface KeyVerifier {
  /** True when the key is a configured static key or a stored, unrevoked key. */
  verify(key: string): Promise<boolean>;
}

// TODO(auth helper): hashing, stored keys, constant-time comparison, last_used_at.
export function createKeyStore(_db: Kysely<Database>, options: { staticKeys: readonly string[] }): KeyVerifier {
  return { verify: async (key) => options.staticKeys.includes(key) };
}
