/**
 * Replicas share a batch's queue on PostgreSQL (FOR UPDATE SKIP LOCKED): two server processes
 * run the same batch, one is `kill -9`'d mid-batch while it holds lines, and the other finishes
 * it, taking the dead one's lines once their leases run out; every custom_id appears once, each
 * vector the synchronous route's. Needs TEST_POSTGRES_URL; the replicas share FILES_DIR, as they must.
 *
 * Nothing here waits on a guessed time: each wait polls for the state it needs until a deadline,
 * and a wait that fails says where the batch stopped (its progress over time, its lines in the
 * database by state and holder, the replicas' warnings).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';
import { BATCH_TEST_KEY as KEY, batchClient, embeddingLines, expectEveryLineOnce } from '../helpers/batch-client.js';
import { freshPostgresSchema } from '../helpers/test-databases.js';
import { spawnServer, type SpawnedServer } from '../server/spawn-server.js';

const LINES = 400;
const BUDGET_MS = 300_000;
const FINAL = ['completed', 'failed', 'cancelled', 'expired'];
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Lines this replica ran to an answer, from its /metrics. */
async function linesDone(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers: { Authorization: `Bearer ${KEY}` } })).text();
  return [...text.matchAll(/^batch_lines_total\{outcome="\w+"\} (\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
}

/** The id a replica's claims carry (batch_lines.claimed_by), logged when it first claims lines. */
const runnerOf = (server: SpawnedServer) => /"message":"batch runner claiming lines","runner":"([^"]+)"/.exec(server.stderr())?.[1];

describe('replicas share a batch on PostgreSQL; one killed mid-batch (real MiniLM)', function () {
  this.timeout(BUDGET_MS);
  let dir: string;
  let database: Awaited<ReturnType<typeof freshPostgresSchema>> | undefined;
  let rows: pg.Client | undefined;
  const servers: SpawnedServer[] = [];
  before(function () {
    if (!process.env.TEST_POSTGRES_URL || !existsSync(join(REPO_ROOT, 'models', 'all-MiniLM-L6-v2', '.installed.json'))) this.skip();
  });
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lis-batch-'));
    database = await freshPostgresSchema();
    rows = new pg.Client({ connectionString: database.url });
    await rows.connect();
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    await rows?.end();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('completes every line exactly once after a replica dies holding lines', async () => {
    const started = Date.now();
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

    const seen: string[] = [];
    let progress: any;
    /** The batch's lines by state and holder, with each holder's lease left (ms). */
    const lineStates = async () => {
      const { rows: states } = await rows!.query(
        `SELECT status, claimed_by, count(*)::int AS n, round(min(lease_until) - $1::float8) AS lease_left
           FROM batch_lines WHERE batch_id = $2 GROUP BY status, claimed_by ORDER BY status, claimed_by`,
        [Date.now(), id],
      );
      const holder = (runner: string) => (runner === runnerOf(first) ? 'the first' : runner === runnerOf(second) ? 'the second' : runner);
      const described = states.map(
        (row) => `${row.status}${row.claimed_by ? ` by ${holder(row.claimed_by)} (lease ${row.lease_left} ms left)` : ''}: ${row.n}`,
      );
      return described.length > 0 ? described.join(', ') : 'none yet';
    };
    /** Polls the batch until `done` holds; past `deadline`, fails saying where it stopped. */
    const waitFor = async (what: string, deadline: number, done: () => boolean | Promise<boolean>) => {
      let lastNote = 0;
      for (;;) {
        progress = await client.batch(id);
        if (await done()) return;
        const elapsed = Math.round((Date.now() - started) / 1000);
        if (Date.now() - lastNote >= 5_000) {
          lastNote = Date.now();
          seen.push(`${elapsed} s: ${progress.status} ${JSON.stringify(progress.request_counts)}; lines ${await lineStates()}`);
        }
        if (Date.now() > deadline) {
          const warnings = (server: SpawnedServer) =>
            server
              .stderr()
              .split('\n')
              .filter((line) => /"level":"(warn|error)"/.test(line))
              .slice(-10)
              .join('\n');
          throw new Error(
            [
              `timed out after ${elapsed} s waiting for ${what}`,
              `now: ${progress.status} ${JSON.stringify(progress.request_counts)}; lines ${await lineStates()}`,
              'seen:',
              ...seen,
              `first replica's warnings:\n${warnings(first)}`,
              `second replica's warnings:\n${warnings(second)}`,
            ].join('\n'),
          );
        }
        await delay(200);
      }
    };

    // Killed once a quarter is done, while it holds lines of its own: they must come back.
    let held = 0;
    await waitFor('a quarter of the lines done, with lines held by the first replica', started + BUDGET_MS / 2, async () => {
      if (FINAL.includes(progress.status)) throw new Error(`the batch ended before a replica was killed: ${JSON.stringify(progress)}`);
      if (progress.request_counts.completed < LINES / 4) return false;
      const victim = runnerOf(first);
      if (victim === undefined) return false;
      const { rows: claimed } = await rows!.query(`SELECT count(*)::int AS n FROM batch_lines WHERE status = 'claimed' AND claimed_by = $1`, [victim]);
      held = claimed[0].n;
      return held > 0 && (await linesDone(first.url)) > 0;
    });
    first.child.kill('SIGKILL');
    await first.exited;
    seen.push(`${Math.round((Date.now() - started) / 1000)} s: the first replica killed holding ${held} lines; lines ${await lineStates()}`);
    expect(progress.request_counts.completed, 'killed mid-batch').to.be.below(LINES);

    await waitFor('the batch to end after the kill', started + BUDGET_MS - 30_000, () => FINAL.includes(progress.status));
    expect(await linesDone(second.url), 'the surviving replica ran lines').to.be.above(0);
    await expectEveryLineOnce(client, progress, lines);
    // Renewals once deadlocked with result writes, losing results and stranding their lines.
    for (const server of [first, second]) expect(server.stderr()).not.to.contain('deadlock detected');
  });
});
