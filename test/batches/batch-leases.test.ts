/**
 * Line claims and their leases, on each test database (SQLite; PostgreSQL with TEST_POSTGRES_URL):
 * a runner that dies, or that fails to write its results, must let its lines go so another run
 * takes them, and each line's result is written once. On PostgreSQL, renewing leases must never
 * wait on a line another transaction holds: it used to, and deadlocked against the same runner's
 * result writes, whose lines were then renewed forever and never ran again (the replicas test hung).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import type { Kysely } from 'kysely';
import pg from 'pg';
import type { KeyAccess } from '../../src/auth/key-access.js';
import { BatchRunner } from '../../src/batches/batch-runner.js';
import { BatchStore, type LineResult } from '../../src/batches/batch-store.js';
import type { BatchRow } from '../../src/batches/batch-tables.js';
import { FileStore } from '../../src/batches/file-store.js';
import { LineDispatcher } from '../../src/batches/line-dispatch.js';
import { createLogger } from '../../src/logger.js';
import type { Database } from '../../src/users/database.js';
import { openDatabase } from '../../src/users/open-database.js';
import { freshPostgresSchema, testDatabaseKinds } from '../helpers/test-databases.js';
import { sleep, until } from '../helpers/until.js';

const ADMIN = { keyId: null, admin: true };
const result = (n: number): LineResult => ({ statusCode: 200, response: JSON.stringify({ n }), error: null, requestId: null });

for (const kind of testDatabaseKinds()) {
  describe(`batch line leases (${kind})`, function () {
    this.timeout(20_000);
    let dir: string;
    let db: Kysely<Database>;
    let postgres: Awaited<ReturnType<typeof freshPostgresSchema>> | undefined;
    let files: FileStore;

    beforeEach(async () => {
      dir = mkdtempSync(join(tmpdir(), 'lis-leases-'));
      postgres = kind === 'postgres' ? await freshPostgresSchema() : undefined;
      db = await openDatabase(postgres?.url ?? join(dir, 'app.db'));
      files = new FileStore(db, { dir: join(dir, 'files'), maxFileBytes: 1 << 20, maxTotalBytes: 1 << 24 });
    });
    afterEach(async () => {
      await db.destroy();
      await postgres?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    /** A batch of `count` embedding lines on a static (admin) key, validated by whoever runs it. */
    async function newBatch(store: BatchStore, count: number): Promise<BatchRow> {
      const jsonl = Array.from({ length: count }, (_, i) =>
        JSON.stringify({ custom_id: `c${i}`, method: 'POST', url: '/v1/embeddings', body: { input: `${i}` } }),
      );
      const input = await files.write(Readable.from([jsonl.join('\n')]), { filename: 'in.jsonl', purpose: 'batch', ownerKeyId: null });
      return store.create({
        ownerKeyId: null,
        requester: 'static',
        endpoint: '/v1/embeddings',
        inputFileId: input.id,
        metadata: null,
        outputExpiresSeconds: null,
      });
    }

    async function started(store: BatchStore, count: number): Promise<BatchRow> {
      const batch = await newBatch(store, count);
      const lines = Array.from({ length: count }, (_, i) => ({ customId: `c${i}`, request: '{}' }));
      expect(await store.start(batch.id, lines)).to.equal(true);
      return batch;
    }

    it("a dead runner's lines are taken once its lease ends; only the taker's results are written", async () => {
      const store = new BatchStore(db);
      const batch = await started(store, 4);
      const dead = await store.claim('dead', 10, 1_000);
      expect(dead).to.have.length(4);
      expect(await store.claim('alive', 10, 1_000), 'leases still running').to.deep.equal([]);
      await sleep(1_050);
      const taken = await store.claim('alive', 10, 30_000);
      expect(taken.map((line) => line.id)).to.deep.equal(dead.map((line) => line.id));
      // The dead runner's results, had it lived to send them, are not written over the taker's claim.
      expect(
        await store.complete(
          'dead',
          dead.map((line) => ({ lineId: line.id, result: result(-1) })),
        ),
      ).to.deep.equal([]);
      const written = await store.complete(
        'alive',
        taken.map((line, i) => ({ lineId: line.id, result: result(i) })),
      );
      expect(written.sort((a, b) => a - b)).to.deep.equal(taken.map((line) => line.id).sort((a, b) => a - b));
      expect(
        await store.complete(
          'alive',
          taken.map((line) => ({ lineId: line.id, result: result(-2) })),
        ),
      ).to.deep.equal([]);
      const done = [];
      for await (const line of store.doneLines(batch.id)) done.push(JSON.parse(line.response!).n);
      expect(done).to.deep.equal([0, 1, 2, 3]);
    });

    it('a runner renews the leases of the lines it names, not of every line claimed in its name', async () => {
      const store = new BatchStore(db);
      await started(store, 4);
      const claimed = await store.claim('runner', 10, 300);
      const kept = claimed.slice(0, 2).map((line) => line.id);
      await sleep(150);
      await store.renew('runner', kept, 30_000);
      await sleep(250);
      const taken = await store.claim('other', 10, 30_000);
      expect(taken.map((line) => line.id)).to.deep.equal(claimed.slice(2).map((line) => line.id));
    });

    it('lines whose results could not be written run again, and the batch completes', async () => {
      // The first write of results fails (a deadlock, a lost connection): its lines must not stay
      // claimed by the living runner, renewed forever, with the batch never finishing.
      let failures = 1;
      class FlakyStore extends BatchStore {
        override async complete(runner: string, results: readonly { lineId: number; result: LineResult }[]): Promise<number[]> {
          if (failures-- > 0) throw new Error('connection terminated unexpectedly');
          return super.complete(runner, results);
        }
      }
      const store = new FlakyStore(db);
      let sent = 0;
      const dispatcher = new LineDispatcher((req, res) => {
        sent++;
        req.resume();
        req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
      });
      const runner = new BatchRunner({
        store,
        files,
        dispatcher,
        access: {} as KeyAccess, // a static key's batch: its policy is never looked up
        logger: createLogger('silent'),
        concurrency: 2,
        leaseMs: 400,
        pollMs: 50,
      });
      const batch = await newBatch(store, 6);
      await runner.start();
      try {
        let row = batch;
        await until(
          async () => (row = await store.get(batch.id, ADMIN)).status === 'completed',
          'the batch to complete after a failed write of results',
          8_000,
          50,
        ).catch(async (error: Error) => {
          throw new Error(`${error.message}; last status ${row.status}, counts ${JSON.stringify(await store.counts(row))}`);
        });
        expect(row.request_completed).to.equal(6);
        expect(sent, 'the lines of the failed write ran again').to.be.above(6);
      } finally {
        await runner.stop();
      }
    });

    if (kind === 'postgres') {
      it('renewing never waits on a line another transaction holds (it deadlocked with result writes)', async () => {
        const store = new BatchStore(db);
        await started(store, 3);
        const claimed = await store.claim('runner', 10, 300);
        // Another transaction holds the first line's row, as the runner's own result write does.
        const holder = new pg.Client({ connectionString: postgres!.url });
        await holder.connect();
        try {
          await holder.query('BEGIN');
          await holder.query('SELECT id FROM batch_lines WHERE id = $1 FOR UPDATE', [claimed[0]!.id]);
          const renewal = store.renew(
            'runner',
            claimed.map((line) => line.id),
            30_000,
          );
          const waited = await Promise.race([renewal.then(() => false), sleep(5_000).then(() => true)]);
          await holder.query('ROLLBACK');
          await renewal;
          expect(waited, 'renew waited for the held row').to.equal(false);
          // The lines it could lock were renewed; the held one was left to the next renewal.
          await sleep(350);
          expect((await store.claim('other', 10, 30_000)).map((line) => line.id)).to.deep.equal([claimed[0]!.id]);
        } finally {
          await holder.end();
        }
      });
    }
  });
}
