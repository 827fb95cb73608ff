import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { sql } from 'kysely';
import { migrationProvider } from '../../src/users/migrations.js';
import { openDatabase } from '../../src/users/open-database.js';

describe('openDatabase', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lis-test-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates missing folders, migrates, and sets the durability pragmas', async () => {
    const db = await openDatabase(join(dir, 'nested', 'folder', 'app.db'));
    try {
      const pragma = async (name: string) => Object.values((await sql.raw(`PRAGMA ${name}`).execute(db)).rows[0] as object)[0];
      expect(await pragma('journal_mode')).to.equal('wal');
      expect(await pragma('synchronous')).to.equal(2); // FULL: fsync on every commit
      expect(await pragma('busy_timeout')).to.equal(0); // waiting for a lock is asynchronous (BusyRetryingDialect)
      const tables = await db.introspection.getTables();
      expect(tables.map((t) => t.name)).to.include.members(['users', 'api_keys']);
    } finally {
      await db.destroy();
    }
  });

  it('opens an existing file again without re-running migrations or losing rows', async () => {
    const path = join(dir, 'app.db');
    const first = await openDatabase(path);
    await first.insertInto('users').values({ name: 'Ann', email: 'a@b.co', created_at: 'x', updated_at: 'x' }).execute();
    await first.destroy();
    const second = await openDatabase(path);
    try {
      expect(await second.selectFrom('users').select('name').execute()).to.deep.equal([{ name: 'Ann' }]);
      const migrations = await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(second);
      expect(migrations.rows.map((r) => r.name)).to.deep.equal(Object.keys(await migrationProvider.getMigrations()));
    } finally {
      await second.destroy();
    }
  });
});
