/** PostgreSQL specifics; the store and HTTP suites also run on it (test-databases.ts). */
import { expect } from 'chai';
import { sql } from 'kysely';
import { migrationProvider } from '../../src/users/migrations.js';
import { openDatabase } from '../../src/users/open-database.js';
import { createUserStore } from '../../src/users/user-store.js';
import { freshPostgresSchema } from '../helpers/test-databases.js';

describe('PostgreSQL', () => {
  before(function () {
    // `.ci/run` sets it to the PostgreSQL server on loopback.
    if (!process.env.TEST_POSTGRES_URL) this.skip();
  });

  it('migrates once when several processes open a fresh database at the same moment', async () => {
    const { url, drop } = await freshPostgresSchema();
    try {
      const replicas = await Promise.all(Array.from({ length: 4 }, () => openDatabase(url)));
      const applied = await sql<{ count: string }>`select count(*) as count from kysely_migration`.execute(replicas[0]!);
      expect(Number(applied.rows[0]!.count)).to.equal(Object.keys(await migrationProvider.getMigrations()).length);
      // Every replica writes through its own pool; the case-insensitive unique email holds across them.
      await createUserStore(replicas[1]!).create({ name: 'Ann', email: 'ann@example.org' });
      const duplicate = await createUserStore(replicas[2]!)
        .create({ name: 'Ann', email: 'ANN@example.org' })
        .catch((error: unknown) => error);
      expect((duplicate as Error).name).to.equal('ConflictError');
      await Promise.all(replicas.map((db) => db.destroy()));
    } finally {
      await drop();
    }
  });

  it('migrates each schema of a shared database on its own, even when they start at once', async () => {
    // Kysely's migrator, given no schema, took another schema's kysely_migration_lock for its own
    // and skipped creating one: "relation kysely_migration_lock does not exist".
    const schemas = await Promise.all(Array.from({ length: 4 }, () => freshPostgresSchema()));
    try {
      const first = await openDatabase(schemas[0]!.url);
      const others = await Promise.all(schemas.slice(1).map((schema) => openDatabase(schema.url)));
      for (const db of [first, ...others]) {
        const applied = await sql<{ count: string }>`select count(*) as count from kysely_migration`.execute(db);
        expect(Number(applied.rows[0]!.count)).to.be.greaterThan(0);
        await db.destroy();
      }
    } finally {
      await Promise.all(schemas.map((schema) => schema.drop()));
    }
  });
});
