import type { CompiledQuery, Kysely } from 'kysely';
import { ConflictError, NotFoundError } from '../errors.js';
import type { Database, UserRow } from './database.js';
import { isPostgresUniqueViolation } from './open-postgres.js';

/** A stored user record, exactly as responses return it (SPEC: "the whole stored record"). */
type User = UserRow;

/** The fields a client supplies; PUT replaces both. */
export interface UserInput {
  name: string;
  email: string;
}

export interface UserStore {
  /** Every record, oldest first. */
  list(): Promise<User[]>;
  get(id: number): Promise<User>;
  create(input: UserInput): Promise<User>;
  update(id: number, input: UserInput): Promise<User>;
  remove(id: number): Promise<void>;
}

/**
 * Users over Kysely. Unknown ids throw NotFoundError and duplicate emails (compared without
 * case, see the users_email_nocase index) throw ConflictError; the route layer maps neither.
 */
export function createUserStore(db: Kysely<Database>, now: () => Date = () => new Date()): UserStore {
  const notFound = (id: number) => () => new NotFoundError('user', id);
  // The two reads every GET runs are compiled once: building and compiling Kysely's query tree
  // on each request cost more than SQLite's own work for a single row.
  const listUsers = db.selectFrom('users').selectAll().orderBy('id').compile();
  const getUser = db.selectFrom('users').selectAll().where('id', '=', 0).compile();

  return {
    list: async () => (await db.executeQuery(listUsers)).rows,

    async get(id) {
      const [user] = (await db.executeQuery(withParameters(getUser, [id]))).rows;
      if (user === undefined) throw notFound(id)();
      return user;
    },

    async create({ name, email }) {
      const stamp = now().toISOString();
      return withConflictMapping(email, () =>
        db.insertInto('users').values({ name, email, created_at: stamp, updated_at: stamp }).returningAll().executeTakeFirstOrThrow(),
      );
    },

    async update(id, { name, email }) {
      return withConflictMapping(email, () =>
        db.updateTable('users').set({ name, email, updated_at: now().toISOString() }).where('id', '=', id).returningAll().executeTakeFirstOrThrow(notFound(id)),
      );
    },

    async remove(id) {
      await db.deleteFrom('users').where('id', '=', id).returning('id').executeTakeFirstOrThrow(notFound(id));
    },
  };
}

/** The same compiled statement with other values bound to its placeholders. */
function withParameters<R>(query: CompiledQuery<R>, parameters: readonly unknown[]): CompiledQuery<R> {
  if (parameters.length !== query.parameters.length) {
    throw new Error(`expected ${query.parameters.length} parameters, got ${parameters.length}`);
  }
  return { ...query, parameters };
}

async function withConflictMapping<T>(email: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(`a user with email ${email} already exists`);
    throw error;
  }
}

/** better-sqlite3 reports constraint failures with an extended result code, pg with SQLSTATE 23505. */
function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || isPostgresUniqueViolation(error);
}
