import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { sql, type Kysely } from 'kysely';
import { ConflictError, NotFoundError } from '../../src/errors.js';
import type { Database } from '../../src/users/database.js';
import { openDatabase } from '../../src/users/open-database.js';
import { createUserStore, type UserStore } from '../../src/users/user-store.js';
import { freshPostgresSchema, testDatabaseKinds } from '../helpers/test-databases.js';

for (const database of testDatabaseKinds()) {
  describe(`createUserStore (${database})`, () => {
    let dir: string;
    let db: Kysely<Database>;
    let users: UserStore;
    let clock: Date;
    let dropSchema: (() => Promise<void>) | undefined;

    beforeEach(async () => {
      dir = mkdtempSync(join(tmpdir(), 'lis-test-'));
      const postgres = database === 'postgres' ? await freshPostgresSchema() : undefined;
      dropSchema = postgres?.drop;
      db = await openDatabase(postgres?.url ?? join(dir, 'app.db'));
      clock = new Date('2026-01-01T00:00:00.000Z');
      users = createUserStore(db, () => clock);
    });
    afterEach(async () => {
      await db.destroy();
      await dropSchema?.();
      rmSync(dir, { recursive: true, force: true });
    });

    const failure = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (error: unknown) => error,
      );

    it('creates records with generated ids and timestamps and returns the whole record', async () => {
      const ann = await users.create({ name: 'Ann', email: 'ann@example.org' });
      expect(ann).to.deep.equal({
        id: 1,
        name: 'Ann',
        email: 'ann@example.org',
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
      });
      expect(await users.get(1)).to.deep.equal(ann);
      expect(await users.list()).to.deep.equal([ann]);
    });

    it('updates both fields and only updated_at', async () => {
      await users.create({ name: 'Ann', email: 'ann@example.org' });
      clock = new Date('2026-01-02T00:00:00.000Z');
      const updated = await users.update(1, { name: 'Annie', email: 'annie@example.org' });
      expect(updated).to.deep.include({
        name: 'Annie',
        email: 'annie@example.org',
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-02T00:00:00.000Z',
      });
    });

    it('throws NotFoundError for unknown ids on get, update and remove', async () => {
      for (const attempt of [users.get(7), users.update(7, { name: 'x', email: 'x@y.z' }), users.remove(7)]) {
        const error = await failure(attempt);
        expect(error).to.be.instanceOf(NotFoundError);
        expect((error as NotFoundError).message).to.equal('user 7 not found');
      }
    });

    it('throws ConflictError for a duplicate email in any case, on create and update', async () => {
      await users.create({ name: 'Ann', email: 'ann@example.org' });
      await users.create({ name: 'Bob', email: 'bob@example.org' });
      expect(await failure(users.create({ name: 'A2', email: 'ANN@EXAMPLE.ORG' }))).to.be.instanceOf(ConflictError);
      expect(await failure(users.update(2, { name: 'Bob', email: 'Ann@example.org' }))).to.be.instanceOf(ConflictError);
    });

    it('lets other database errors through unchanged', async () => {
      await sql`DROP TABLE users`.execute(db);
      const error = await failure(users.list());
      expect(error).to.be.instanceOf(Error).and.not.be.instanceOf(ConflictError);
      expect((error as Error).message).to.match(/no such table|relation "users" does not exist/);
    });

    it('removes a record', async () => {
      await users.create({ name: 'Ann', email: 'ann@example.org' });
      await users.remove(1);
      expect(await users.list()).to.deep.equal([]);
    });
  });
}
