import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresAdapter, sql } from 'kysely';
import { BusyRetryingDialect } from './busy-retrying-dialect.js';
import type { Database } from './database.js';
import { migrationProvider } from './migrations.js';
import { connectPostgres, isPostgresUrl } from './open-postgres.js';
import { databaseOpenError } from '../startup-error.js';
import { withStatementCache } from './statement-cache.js';

interface OpenDatabaseOptions {
  /**
   * How long a statement waits (asynchronously) for a write lock held by another process, such
   * as `npm run keys`, before failing with 503. Default 5 s.
   */
  busyDeadlineMs?: number;
}

/** Start-up may wait on a lock synchronously: nothing is being served yet. */
const STARTUP_BUSY_TIMEOUT_MS = 5_000;
const BUSY_DEADLINE_MS = 5_000;

/**
 * Opens (creating if needed) the SQLite file and brings its schema up to date.
 * WAL with synchronous=FULL makes every acknowledged write survive `kill -9` and power loss.
 * The key CLI and the server share the file: when the other holds the write lock, a statement
 * waits for it without blocking the event loop (see BusyRetryingDialect), so busy_timeout is 0.
 */
/** Opens and migrates the database: a SQLite file path (or `:memory:`), or a `postgres://` URL. */
export async function openDatabase(path: string, options: OpenDatabaseOptions = {}): Promise<Kysely<Database>> {
  if (isPostgresUrl(path)) return migrated(connectPostgres(path));
  let sqlite: SQLite.Database;
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    sqlite = new SQLite(path);
    sqlite.pragma(`busy_timeout = ${STARTUP_BUSY_TIMEOUT_MS}`);
    // The first write: a read-only file or directory fails here, not at the first request.
    sqlite.pragma('journal_mode = WAL');
  } catch (error) {
    throw databaseOpenError(error as NodeJS.ErrnoException, path);
  }
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 0');
  const dialect = new BusyRetryingDialect({ database: withStatementCache(sqlite), deadlineMs: options.busyDeadlineMs ?? BUSY_DEADLINE_MS });
  return migrated(new Kysely<Database>({ dialect }));
}

async function migrated(db: Kysely<Database>): Promise<Kysely<Database>> {
  try {
    await migrateToLatest(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return db;
}

async function migrateToLatest(db: Kysely<Database>): Promise<void> {
  const migrationTableSchema = await currentPostgresSchema(db);
  const { error, results } = await new Migrator({
    db,
    provider: migrationProvider,
    ...(migrationTableSchema ? { migrationTableSchema } : {}),
  }).migrateToLatest();
  const failed = results?.find((result) => result.status === 'Error');
  if (error || failed) {
    const reason = error instanceof Error ? error.message : String(error ?? 'unknown error');
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${reason}`);
  }
}

/**
 * On PostgreSQL, the schema the connection writes to (its search_path's first). Kysely's migrator,
 * given no schema, takes a migration table of ANY schema for its own: a database shared by several
 * schemas (one per deployment, or per test) then skips creating its lock table and fails
 * ("relation kysely_migration_lock does not exist"). Undefined on SQLite, which has one.
 */
async function currentPostgresSchema(db: Kysely<Database>): Promise<string | undefined> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return undefined;
  const { rows } = await sql<{ schema: string | null }>`SELECT current_schema() AS schema`.execute(db);
  return rows[0]?.schema ?? undefined;
}
