import { expect } from 'chai';
import type { Kysely } from 'kysely';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import SQLite from 'better-sqlite3';
import { createKeyStore, type KeyStore } from '../../src/auth/key-store.js';
import { ConflictError, NotFoundError } from '../../src/errors.js';
import type { Database } from '../../src/users/database.js';
import { openDatabase } from '../../src/users/open-database.js';
import { freshPostgresSchema, testDatabaseKinds } from '../helpers/test-databases.js';
import { until } from '../helpers/until.js';

for (const database of testDatabaseKinds()) {
  describe(`createKeyStore (${database})`, () => {
    let dir: string;
    let db: Kysely<Database>;
    let clock: Date;
    let keys: KeyStore;
    let dropSchema: (() => Promise<void>) | undefined;
    const STATIC = 'static-key-0123456789';

    beforeEach(async () => {
      dir = mkdtempSync(join(tmpdir(), 'lis-test-'));
      const postgres = database === 'postgres' ? await freshPostgresSchema() : undefined;
      dropSchema = postgres?.drop;
      db = await openDatabase(postgres?.url ?? join(dir, 'app.db'));
      clock = new Date('2026-01-01T00:00:00.000Z');
      keys = createKeyStore(db, { staticKeys: [STATIC], now: () => clock });
    });
    afterEach(async () => {
      await db.destroy();
      await dropSchema?.();
      rmSync(dir, { recursive: true, force: true });
    });

    it('creates a 256-bit lis_ key and stores only its SHA-256 and a short prefix', async () => {
      const { key, info } = await keys.create('ci');
      expect(key).to.match(/^lis_[A-Za-z0-9_-]{43}$/);
      expect(info).to.deep.equal({
        id: 1,
        name: 'ci',
        prefix: key.slice(0, 12),
        created_at: '2026-01-01T00:00:00.000Z',
        last_used_at: null,
        revoked_at: null,
        rpm: null,
        models: null,
        expires_at: null,
        admin: 0,
        requests: 0,
        audio_seconds: 0,
        characters: 0,
      });
      const [row] = await db.selectFrom('api_keys').selectAll().execute();
      expect(row!.key_hash).to.equal(createHash('sha256').update(key).digest('hex'));
      expect(JSON.stringify(row)).to.not.include(key.slice(12));
    });

    it('generates a different key every time', async () => {
      const a = await keys.create('a');
      const b = await keys.create('b');
      expect(a.key).to.not.equal(b.key);
    });

    it('verifies stored and static keys and rejects anything else', async () => {
      const { key, info } = await keys.create('ci');
      expect(await keys.verify(key)).to.deep.equal({ id: info.id, rpm: null, models: null, admin: false });
      expect(await keys.verify(STATIC)).to.deep.equal({ id: null, rpm: null, models: null, admin: true });
      for (const wrong of ['', key.slice(0, -1), `${key}x`, key.toUpperCase(), `${STATIC}x`, STATIC.slice(1), key.slice(0, 12)]) {
        expect(await keys.verify(wrong), wrong).to.equal(undefined);
      }
    });

    it('stores a policy (requests per minute, models, expiry, admin) and stops verifying an expired key', async () => {
      const { key, info } = await keys.create('bot', {
        rpm: 60,
        models: ['whisper-1', 'minilm-sentiment'],
        expiresAt: new Date('2026-01-31T00:00:00.000Z'),
        admin: true,
      });
      expect(info).to.deep.include({ rpm: 60, models: '["whisper-1","minilm-sentiment"]', expires_at: '2026-01-31T00:00:00.000Z', admin: 1, requests: 0 });
      expect(await keys.verify(key)).to.deep.equal({ id: info.id, rpm: 60, models: ['whisper-1', 'minilm-sentiment'], admin: true });
      clock = new Date('2026-01-31T00:00:00.000Z');
      expect(await keys.verify(key)).to.equal(undefined);
    });

    it('adds usage atomically', async () => {
      const { info } = await keys.create('a');
      await Promise.all([
        keys.addUsage(info.id, { requests: 2, audioSeconds: 1.5, characters: 10 }),
        keys.addUsage(info.id, { requests: 1, audioSeconds: 0.25, characters: 5 }),
      ]);
      expect((await keys.list())[0]).to.deep.include({ requests: 3, audio_seconds: 1.75, characters: 15 });
    });

    it('lists keys without their hashes', async () => {
      await keys.create('a');
      await keys.create('b');
      const list = await keys.list();
      expect(list.map((k) => k.name)).to.deep.equal(['a', 'b']);
      for (const info of list) expect(info).to.not.have.property('key_hash');
    });

    it('revokes by id, by prefix and by the whole key, and revoked keys stop verifying', async () => {
      const a = await keys.create('a');
      const b = await keys.create('b');
      const c = await keys.create('c');
      clock = new Date('2026-01-02T00:00:00.000Z');
      expect((await keys.revoke(String(a.info.id))).revoked_at).to.equal('2026-01-02T00:00:00.000Z');
      expect((await keys.revoke(b.info.prefix)).id).to.equal(b.info.id);
      expect((await keys.revoke(c.key)).id).to.equal(c.info.id);
      for (const { key } of [a, b, c]) expect(await keys.verify(key)).to.equal(undefined);
    });

    it('keeps the first revocation time when a key is revoked twice', async () => {
      const { info } = await keys.create('a');
      await keys.revoke(String(info.id));
      clock = new Date('2026-02-01T00:00:00.000Z');
      expect((await keys.revoke(String(info.id))).revoked_at).to.equal('2026-01-01T00:00:00.000Z');
    });

    it('throws NotFoundError for an unknown id or prefix', async () => {
      await keys.create('a');
      for (const target of ['99', 'lis_nothere']) {
        const error = await keys.revoke(target).catch((e: unknown) => e);
        expect(error).to.be.instanceOf(NotFoundError);
      }
    });

    it('refuses an ambiguous prefix', async () => {
      await keys.create('a');
      await keys.create('b');
      await db.updateTable('api_keys').set({ prefix: 'lis_same' }).execute();
      expect(await keys.revoke('lis_same').catch((e: unknown) => e)).to.be.instanceOf(ConflictError);
    });

    it('records last use at most once a minute per key', async () => {
      const { key, info } = await keys.create('a');
      const lastUsed = async () => (await db.selectFrom('api_keys').select('last_used_at').where('id', '=', info.id).executeTakeFirstOrThrow()).last_used_at;

      // The write happens in the background (on PostgreSQL, on another pooled connection): wait for it, bounded.
      const becomes = async (expected: string) => {
        await until(async () => (await lastUsed()) === expected, `last use ${expected}`, 2_000, 10);
      };

      clock = new Date('2026-01-01T00:00:10.000Z');
      await keys.verify(key);
      await becomes('2026-01-01T00:00:10.000Z');
      clock = new Date('2026-01-01T00:00:50.000Z');
      await keys.verify(key);
      await sleep(50);
      expect(await lastUsed()).to.equal('2026-01-01T00:00:10.000Z');
      clock = new Date('2026-01-01T00:01:11.000Z');
      await keys.verify(key);
      await becomes('2026-01-01T00:01:11.000Z');
    });

    // SQLite only: PostgreSQL has no database-wide write lock for another process to hold.
    if (database === 'sqlite')
      describe('while another process (the keys CLI) holds the database write lock', () => {
        let locked: Kysely<Database>;
        let lockedKeys: KeyStore;
        let otherProcess: SQLite.Database;
        const lastUsed = async () => (await locked.selectFrom('api_keys').select('last_used_at').executeTakeFirstOrThrow()).last_used_at;

        beforeEach(async () => {
          const path = join(dir, 'locked.db');
          locked = await openDatabase(path, { busyDeadlineMs: 200 });
          lockedKeys = createKeyStore(locked, { staticKeys: [], now: () => clock });
          otherProcess = new SQLite(path);
        });
        afterEach(async () => {
          otherProcess.close();
          await locked.destroy();
        });

        it('verifies at once without stalling the event loop, and records the use once the lock is released', async () => {
          const { key } = await lockedKeys.create('a');
          otherProcess.exec('BEGIN IMMEDIATE');
          const loopDelay = monitorEventLoopDelay({ resolution: 10 });
          loopDelay.enable();
          const start = performance.now();
          expect(await lockedKeys.verify(key)).to.not.equal(undefined);
          // The lock is held for good here; a blocking wait would take the whole busy time-out (5 s).
          // 1 s leaves room for a loaded CI machine.
          expect(performance.now() - start).to.be.below(1_000);
          await sleep(50);
          loopDelay.disable();
          expect(loopDelay.max / 1e6).to.be.below(1_000);
          otherProcess.exec('COMMIT');
          await until(async () => (await lastUsed()) === '2026-01-01T00:00:00.000Z', 'the last use to be written', 2_000, 10);
        });

        it('tries the last-use write again on the next verification when it timed out', async () => {
          const { key } = await lockedKeys.create('a');
          otherProcess.exec('BEGIN IMMEDIATE');
          expect(await lockedKeys.verify(key)).to.not.equal(undefined);
          await sleep(400); // past the 200 ms deadline: the write gave up
          otherProcess.exec('ROLLBACK');
          expect(await lastUsed()).to.equal(null);
          clock = new Date('2026-01-01T00:00:05.000Z'); // within the once-a-minute interval
          expect(await lockedKeys.verify(key)).to.not.equal(undefined);
          expect(await lastUsed()).to.equal('2026-01-01T00:00:05.000Z');
        });
      });
  });
}
