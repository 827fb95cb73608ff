import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import SQLite from 'better-sqlite3';
import { expect } from 'chai';
import type { Kysely } from 'kysely';
import { ServerBusyError } from '../../src/errors.js';
import { isBusyError } from '../../src/users/busy-retrying-dialect.js';
import type { Database } from '../../src/users/database.js';
import { openDatabase } from '../../src/users/open-database.js';
import { createUserStore } from '../../src/users/user-store.js';
import { rejection } from '../helpers/rejection.js';

describe('BusyRetryingDialect (via openDatabase)', () => {
  let dir: string;
  let path: string;
  let db: Kysely<Database>;
  let otherProcess: SQLite.Database;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lis-test-'));
    path = join(dir, 'app.db');
    db = await openDatabase(path, { busyDeadlineMs: 500 });
    // timeout 0: the "other process" must fail at once, not wait, when we hold the lock.
    otherProcess = new SQLite(path, { timeout: 0 });
  });
  afterEach(async () => {
    otherProcess.close();
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const row = (name: string) => ({ name, email: `${name}@example.org`, created_at: 'x', updated_at: 'x' });

  it('loses no acknowledged write while another process takes and releases the lock over and over', async () => {
    const users = createUserStore(db);
    let flapping = true;
    const flap = (async () => {
      for (let turn = 0; flapping; turn++) {
        otherProcess.exec('BEGIN IMMEDIATE');
        otherProcess.prepare('INSERT INTO users (name, email, created_at, updated_at) VALUES (?, ?, ?, ?)').run(...Object.values(row(`other${turn}`)));
        await sleep(15);
        otherProcess.exec('COMMIT');
        await sleep(5);
      }
    })();
    const acknowledged = await Promise.all(Array.from({ length: 40 }, (_, i) => users.create({ name: `u${i}`, email: `u${i}@example.org` })));
    flapping = false;
    await flap;

    // Read back through a fresh connection: what was acknowledged is in the file.
    const stored = new SQLite(path, { readonly: true });
    try {
      const names = stored.prepare("SELECT id, name FROM users WHERE name LIKE 'u%' ORDER BY id").all() as Array<{ id: number; name: string }>;
      expect(names).to.deep.equal(acknowledged.map(({ id, name }) => ({ id, name })).sort((a, b) => a.id - b.id));
    } finally {
      stored.close();
    }
  });

  it('begins transactions IMMEDIATE: the write lock is waited for at BEGIN and held until COMMIT', async () => {
    otherProcess.exec('BEGIN IMMEDIATE');
    setTimeout(() => otherProcess.exec('COMMIT'), 200);
    const start = performance.now();
    await db.transaction().execute(async (trx) => {
      expect(performance.now() - start).to.be.at.least(150);
      // Before this transaction writes anything, another writer is already shut out.
      expect(() => otherProcess.exec('BEGIN IMMEDIATE'))
        .to.throw()
        .that.satisfies(isBusyError);
      await trx.insertInto('users').values(row('ann')).execute();
    });
    expect(await db.selectFrom('users').select('name').execute()).to.deep.equal([{ name: 'ann' }]);
  });

  it('throws ServerBusyError at the deadline, and does not retry other errors', async () => {
    const users = createUserStore(db);
    await users.create({ name: 'Ann', email: 'ann@example.org' });
    otherProcess.exec('BEGIN IMMEDIATE');
    const start = performance.now();
    const busy = await rejection(users.create({ name: 'Bob', email: 'bob@example.org' }));
    expect(busy).to.be.instanceOf(ServerBusyError);
    expect(performance.now() - start).to.be.within(490, 1_500);
    otherProcess.exec('ROLLBACK');

    const startConflict = performance.now();
    const conflict = await rejection(users.create({ name: 'Ann', email: 'ann@example.org' }));
    expect(conflict.name).to.equal('ConflictError');
    expect(performance.now() - startConflict).to.be.below(100);
  });

  it('reads go on while a write waits for the lock', async () => {
    otherProcess.exec('BEGIN IMMEDIATE');
    const waiting = db.insertInto('users').values(row('ann')).execute();
    await sleep(20);
    const start = performance.now();
    expect(await db.selectFrom('users').selectAll().execute()).to.deep.equal([]);
    expect(performance.now() - start).to.be.below(100);
    otherProcess.exec('COMMIT');
    await waiting;
    expect(await db.selectFrom('users').select('name').execute()).to.deep.equal([{ name: 'ann' }]);
  });
});
