import type { Kysely } from 'kysely';
import type { Database, UserRow } from './database.js';

// TODO(foundation helper): full store with NotFound/Conflict errors.
export interface UserStore {
  list(): Promise<UserRow[]>;
}

export function createUserStore(db: Kysely<Database>): UserStore {
  return {
    list: () => db.selectFrom('users').selectAll().orderBy('id').execute(),
  };
}
