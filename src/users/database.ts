/** Table types for Kysely. Column types describe what SQLite stores; timestamps are ISO-8601 text. */
import type { ColumnType, Generated, Selectable } from 'kysely';
import type { BatchTables } from '../batches/batch-tables.js';

interface UserTable {
  id: Generated<number>;
  name: string;
  email: string;
  created_at: string;
  updated_at: string;
}

interface ApiKeyTable {
  id: Generated<number>;
  name: string;
  /** First characters of the key, shown in listings so a person can tell keys apart. */
  prefix: string;
  /** SHA-256 of the whole key, hex. The key itself is never stored. */
  key_hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** Requests per minute allowed; null: no limit. */
  rpm: ColumnType<number | null, number | null | undefined, number | null>;
  /** JSON array of the model ids (or aliases) the key may use; null: every model. */
  models: ColumnType<string | null, string | null | undefined, string | null>;
  expires_at: ColumnType<string | null, string | null | undefined, string | null>;
  /** 1: may manage the server (metrics); static API_KEYS are always admin. */
  admin: ColumnType<number, number | undefined, number>;
  requests: ColumnType<number, number | undefined, number>;
  audio_seconds: ColumnType<number, number | undefined, number>;
  characters: ColumnType<number, number | undefined, number>;
}

export interface Database extends BatchTables {
  users: UserTable;
  api_keys: ApiKeyTable;
}

export type UserRow = Selectable<UserTable>;
export type ApiKeyRow = Selectable<ApiKeyTable>;
