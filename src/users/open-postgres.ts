/**
 * PostgreSQL through Kysely's Postgres dialect (`pg`), for running several server processes on
 * one database. Migrations are the same list as SQLite's (migrations.ts branches where the two
 * dialects differ); Kysely's migrator takes a row lock, so replicas that start at once migrate
 * once and wait for each other.
 */
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './database.js';

/** Connections per process; each replica holds its own pool. */
const POOL_SIZE = 10;

export function isPostgresUrl(target: string): boolean {
  return /^postgres(ql)?:\/\//.test(target);
}

export function connectPostgres(url: string): Kysely<Database> {
  const pool = new pg.Pool({ connectionString: url, max: POOL_SIZE });
  // An idle client that loses its connection (a database restart) must not crash the process;
  // the pool drops it and the next query opens another.
  pool.on('error', () => {});
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

/** Unique-constraint violation (SQLSTATE 23505). */
export function isPostgresUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown })?.code === '23505';
}
