/**
 * The databases the store and HTTP tests run on: SQLite always, PostgreSQL when
 * TEST_POSTGRES_URL is set (`.ci/run` sets it to the loopback server). Each PostgreSQL test
 * database is a fresh schema, dropped afterwards, so tests never see each other's rows.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export type TestDatabaseKind = 'sqlite' | 'postgres';

export function testDatabaseKinds(): TestDatabaseKind[] {
  return process.env.TEST_POSTGRES_URL ? ['sqlite', 'postgres'] : ['sqlite'];
}

/** A `postgres://` URL whose connections use a new, empty schema; `drop` removes it. */
export async function freshPostgresSchema(): Promise<{ url: string; drop(): Promise<void> }> {
  const base = process.env.TEST_POSTGRES_URL;
  if (!base) throw new Error('TEST_POSTGRES_URL is not set');
  const schema = `test_${randomBytes(6).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE SCHEMA ${schema}`);
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { url: url.toString(), drop: () => admin(`DROP SCHEMA ${schema} CASCADE`) };
}
