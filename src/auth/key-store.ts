import type { Kysely } from 'kysely';
import { ConflictError, NotFoundError } from '../errors.js';
import type { ApiKeyRow, Database } from '../users/database.js';
import { digestsEqual, displayPrefix, generateApiKey, hashApiKey } from './api-key.js';

/** What a key may do. Static API_KEYS have no limits and are admin. */
export interface KeyPolicy {
  /** The stored key's id; null for a static key. */
  id: number | null;
  /** Requests per minute; null: unlimited. */
  rpm: number | null;
  /** Model ids or aliases the key may use; null: every model. */
  models: readonly string[] | null;
  admin: boolean;
}

interface KeyVerifier {
  /**
   * The key's policy when it is a configured static key or a stored key that is neither revoked
   * nor expired; undefined otherwise.
   */
  verify(key: string): Promise<KeyPolicy | undefined>;
  /** The policy of the stored key `id`, if it is neither revoked nor expired. */
  policyOf(id: number): Promise<KeyPolicy | undefined>;
}

/** What `keys list` shows: everything but the hash. */
export type ApiKeyInfo = Omit<ApiKeyRow, 'key_hash'>;

export interface NewKeyPolicy {
  rpm?: number;
  models?: readonly string[];
  expiresAt?: Date;
  admin?: boolean;
}

export interface KeyUsage {
  requests: number;
  audioSeconds: number;
  characters: number;
}

export interface KeyStore extends KeyVerifier {
  /** Stores a new key's hash and returns the key itself, which exists nowhere else afterwards. */
  create(name: string, policy?: NewKeyPolicy): Promise<{ key: string; info: ApiKeyInfo }>;
  /** Adds to a stored key's usage counters (one atomic update; safe across replicas). */
  addUsage(id: number, usage: KeyUsage): Promise<void>;
  list(): Promise<ApiKeyInfo[]>;
  /** Revokes by numeric id, by the displayed prefix, or by the whole key. */
  revoke(idPrefixOrKey: string): Promise<ApiKeyInfo>;
}

interface KeyStoreOptions {
  /** Keys from API_KEYS; accepted in addition to stored ones, never written to the database. */
  staticKeys: readonly string[];
  now?: () => Date;
  /** last_used_at is written at most this often per key, in the background, so verification stays a read. */
  touchIntervalMs?: number;
}

const INFO_COLUMNS = [
  'id',
  'name',
  'prefix',
  'created_at',
  'last_used_at',
  'revoked_at',
  'rpm',
  'models',
  'expires_at',
  'admin',
  'requests',
  'audio_seconds',
  'characters',
] as const;
const STATIC_POLICY: KeyPolicy = Object.freeze({ id: null, rpm: null, models: null, admin: true });

export function createKeyStore(db: Kysely<Database>, options: KeyStoreOptions): KeyStore {
  const now = options.now ?? (() => new Date());
  const touchIntervalMs = options.touchIntervalMs ?? 60_000;
  const staticDigests = options.staticKeys.map(hashApiKey);
  const lastTouched = new Map<number, number>();

  /**
   * Records last use without making the request wait for it: the write may have to wait for
   * another process's lock (the keys CLI) for seconds, and bookkeeping must neither delay nor
   * fail authentication. A write that fails is forgotten, so the next verification tries again.
   */
  function touch(id: number): void {
    const at = now();
    const previous = lastTouched.get(id);
    if (previous !== undefined && at.getTime() - previous < touchIntervalMs) return;
    lastTouched.set(id, at.getTime());
    db.updateTable('api_keys')
      .set({ last_used_at: at.toISOString() })
      .where('id', '=', id)
      .execute()
      .catch(() => {
        if (lastTouched.get(id) === at.getTime()) lastTouched.delete(id);
      });
  }

  return {
    async verify(key) {
      const digest = hashApiKey(key);
      // Every static key is compared, with no early exit, so timing does not reveal which matched.
      let matched = false;
      for (const candidate of staticDigests) matched = digestsEqual(candidate, digest) || matched;
      if (matched) return STATIC_POLICY;

      // Looking up by hash leaks nothing useful through timing: the attacker controls the key,
      // not its digest. The stored digest is then compared in constant time all the same.
      const row = await db
        .selectFrom('api_keys')
        .select(['id', 'key_hash', 'revoked_at', 'expires_at', 'rpm', 'models', 'admin'])
        .where('key_hash', '=', digest.toString('hex'))
        .executeTakeFirst();
      if (!row || row.revoked_at !== null || !digestsEqual(Buffer.from(row.key_hash, 'hex'), digest)) return undefined;
      if (row.expires_at !== null && Date.parse(row.expires_at) <= now().getTime()) return undefined;
      touch(row.id);
      return { id: row.id, rpm: row.rpm, models: row.models === null ? null : (JSON.parse(row.models) as string[]), admin: row.admin === 1 };
    },

    async policyOf(id) {
      const row = await db.selectFrom('api_keys').select(['id', 'revoked_at', 'expires_at', 'rpm', 'models', 'admin']).where('id', '=', id).executeTakeFirst();
      if (!row || row.revoked_at !== null) return undefined;
      if (row.expires_at !== null && Date.parse(row.expires_at) <= now().getTime()) return undefined;
      return { id: row.id, rpm: row.rpm, models: row.models === null ? null : (JSON.parse(row.models) as string[]), admin: row.admin === 1 };
    },

    async addUsage(id, { requests, audioSeconds, characters }) {
      await db
        .updateTable('api_keys')
        .set((eb) => ({
          requests: eb('requests', '+', requests),
          audio_seconds: eb('audio_seconds', '+', audioSeconds),
          characters: eb('characters', '+', characters),
        }))
        .where('id', '=', id)
        .execute();
    },

    async create(name, policy = {}) {
      const key = generateApiKey();
      const info = await db
        .insertInto('api_keys')
        .values({
          name,
          prefix: displayPrefix(key),
          key_hash: hashApiKey(key).toString('hex'),
          created_at: now().toISOString(),
          last_used_at: null,
          revoked_at: null,
          rpm: policy.rpm ?? null,
          models: policy.models ? JSON.stringify(policy.models) : null,
          expires_at: policy.expiresAt?.toISOString() ?? null,
          admin: policy.admin ? 1 : 0,
        })
        .returning(INFO_COLUMNS)
        .executeTakeFirstOrThrow();
      return { key, info };
    },

    list: () => db.selectFrom('api_keys').select(INFO_COLUMNS).orderBy('id').execute(),

    async revoke(idPrefixOrKey) {
      const query = db.selectFrom('api_keys').select(INFO_COLUMNS);
      const matches = /^\d+$/.test(idPrefixOrKey)
        ? await query.where('id', '=', Number(idPrefixOrKey)).execute()
        : await query.where((eb) => eb.or([eb('prefix', '=', idPrefixOrKey), eb('key_hash', '=', hashApiKey(idPrefixOrKey).toString('hex'))])).execute();
      const [match] = matches;
      if (!match) throw new NotFoundError('API key', idPrefixOrKey);
      if (matches.length > 1) {
        throw new ConflictError(`prefix ${idPrefixOrKey} matches keys ${matches.map((m) => m.id).join(', ')}; revoke by id`);
      }
      return db
        .updateTable('api_keys')
        .set({ revoked_at: match.revoked_at ?? now().toISOString() })
        .where('id', '=', match.id)
        .returning(INFO_COLUMNS)
        .executeTakeFirstOrThrow(() => new NotFoundError('API key', idPrefixOrKey));
    },
  };
}
