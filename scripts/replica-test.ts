/**
 * The replica set under load and under failure (issue 12 item 8), bounded in time and count:
 *
 *   npm run test:replicas [-- --replicas 3 --connections 100 --duration 60 --rpm 600]
 *
 * 1. Starts N replicas on a fresh PostgreSQL database (they migrate it at the same moment) and
 *    Redis, with HAProxy in front from deploy/haproxy.cfg (scripts/cluster/cluster.ts). The
 *    classifier is the tiny fixture model under test/fixtures/models, so a clean clone runs it.
 * 2. `connections` clients send mixed traffic through HAProxy for `duration` seconds: users
 *    created, read, updated and deleted (each client its own users), and classifications.
 *    At 25 % of the run replica2 is `kill -9`'d and restarted 10 s later; at 55 % the last
 *    replica is stopped with SIGTERM (it drains) and restarted, as in a rolling restart.
 * 3. Then a key made with `keys create --rpm 600` sends twice its limit through HAProxy.
 * 4. Checks, and prints a table of figures: every acknowledged write is in PostgreSQL with its
 *    content; every read returned the last acknowledged write; every failed request was in
 *    flight on the killed replica (HAProxy names the replica in X-Served-By, on its own 502s
 *    too; the request started before the process was gone and ended after the kill); the other
 *    replicas served throughout; the killed and the drained replica served again after their
 *    restart; the limit admitted rpm ± 5 % across the replicas, and the key's usage says so.
 * Exits 1 when a check fails, 2 on bad arguments; gives up after a fixed time budget.
 *
 * PostgreSQL: TEST_POSTGRES_URL (any database on the server; default
 * postgres://postgres@127.0.0.1:5432/postgres) is used to create the database "replica_test".
 * Redis: REPLICA_TEST_REDIS_URL, default redis://127.0.0.1:6379/9 (its own logical database;
 * the rate-limit counts of earlier runs are deleted from it first).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { Redis } from 'ioredis';
import pg from 'pg';
import { Cluster, repositoryRoot, type Replica } from './cluster/cluster.js';
import { exchange, keepAliveAgent } from './cluster/http-client.js';
import { runMixedLoad } from './cluster/mixed-load.js';
import { report } from './cluster/replica-report.js';
import { judge, type Burst, type Events } from './cluster/replica-verdict.js';
import { WriteLedger } from './cluster/write-ledger.js';
import { loadAverage } from './eval/lib/load-average.js';

const USAGE = 'Usage: npm run test:replicas -- [--replicas 3] [--connections 100] [--duration 60] [--rpm 600]';
const MODEL = 'bert-sentiment-random';
const REQUEST_TIMEOUT_MS = 30_000;
class UsageError extends Error {}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      replicas: { type: 'string', default: '3' },
      connections: { type: 'string', default: '100' },
      duration: { type: 'string', default: '60' },
      rpm: { type: 'string', default: '600' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const replicas = integer('--replicas', values.replicas, 2, 8);
  const connections = integer('--connections', values.connections, 1, 500);
  // The schedule (kill at 25 %, restart 10 s later, drain at 55 %) needs about 40 s.
  const durationMs = integer('--duration', values.duration, 40, 300) * 1000;
  const rpm = integer('--rpm', values.rpm, 10, 5000);
  // The whole run, start-up and shut-down included, never takes longer than this.
  const budgetMs = durationMs + 110_000;
  const watchdog = setTimeout(() => {
    process.stderr.write(`replica test: gave up after ${budgetMs / 1000} s\n`);
    process.exit(1);
  }, budgetMs);

  const root = repositoryRoot(dirname(fileURLToPath(import.meta.url)));
  const dir = mkdtempSync(join(tmpdir(), 'lis-replica-test-'));
  const apiKey = `replica-test-${randomBytes(12).toString('hex')}`;
  const redisUrl = process.env.REPLICA_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/9';
  await forgetRateLimits(redisUrl);
  writeFileSync(
    join(dir, 'models.json'),
    JSON.stringify({
      models: [
        {
          id: MODEL,
          task: 'text-classification',
          engine: 'transformers-text-classification',
          description: 'fixture',
          license: 'test',
          options: { labels: ['negative', 'positive'], workers: 1 },
        },
      ],
    }),
  );

  const loadBefore = loadAverage();
  log(`starting ${replicas} replicas and HAProxy (logs in ${dir})`);
  const cluster = await Cluster.start({
    replicas,
    root,
    dir,
    postgresUrl: process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    database: 'replica_test',
    freshDatabase: true,
    redisUrl,
    frontPort: 0,
    statsPort: 0,
    firstReplicaPort: 0,
    shutdownDelaySeconds: 3,
    env: { API_KEYS: apiKey, MODELS_DIR: join(root, 'test/fixtures/models'), MODELS_MANIFEST: join(dir, 'models.json'), LOG_LEVEL: 'warn' },
    haproxy: process.env.HAPROXY ?? 'haproxy',
  });
  let exitCode = 1;
  try {
    exitCode = await run(cluster, { replicas, connections, durationMs, rpm, apiKey, dir, loadBefore });
  } finally {
    await cluster.stop();
    clearTimeout(watchdog);
  }
  if (exitCode === 0) rmSync(dir, { recursive: true, force: true });
  else log(`logs kept in ${dir}`);
  return exitCode;
}

async function run(
  cluster: Cluster,
  options: { replicas: number; connections: number; durationMs: number; rpm: number; apiKey: string; dir: string; loadBefore: string },
): Promise<number> {
  const base = new URL(cluster.frontUrl);
  const auth = { Authorization: `Bearer ${options.apiKey}` };
  // Each replica loads the model before the clock starts (a restarted one loads it under load).
  const direct = keepAliveAgent(1);
  for (const replica of cluster.replicas) {
    const warm = await exchange(direct, new URL(replica.url), 'POST', '/v1/classifications', {
      json: { model: MODEL, query: 'warm up' },
      headers: auth,
      timeoutMs: REQUEST_TIMEOUT_MS,
    });
    if (warm.status !== 200) throw new Error(`${replica.name} could not classify: ${warm.status} ${warm.body}`);
  }
  direct.destroy();

  const killed = cluster.replicas[1]!;
  const drained = cluster.replicas.at(-1) === killed ? cluster.replicas[0]! : cluster.replicas.at(-1)!;
  const ledger = new WriteLedger();
  const agent = keepAliveAgent(options.connections);
  const t0 = performance.now();
  log(`${options.connections} connections of mixed traffic for ${options.durationMs / 1000} s`);
  const load = runMixedLoad(
    {
      agent,
      base,
      connections: options.connections,
      durationMs: options.durationMs,
      maxRequests: 2_000_000,
      timeoutMs: REQUEST_TIMEOUT_MS,
      apiKey: options.apiKey,
      model: MODEL,
      tag: randomBytes(4).toString('hex'),
    },
    ledger,
  ).then((result) => ({ ...result, t1: performance.now() }));
  const events = await failures(cluster, { killed, drained, t0, durationMs: options.durationMs });
  const { samples, staleReads, t1 } = await load;
  const balancer = await cluster.balancerStats();
  agent.destroy();

  log(`rate limit: ${options.rpm * 2} requests of a key with --rpm ${options.rpm}`);
  await Promise.all(cluster.replicas.map((replica) => cluster.waitForBalancer(replica, 'UP')));
  const limited = await createKey(cluster, options.rpm);
  const burst = await rateBurst(base, limited.key, options.rpm * 2);

  const rows = await usersInDatabase(cluster.databaseUrl);
  const verification = ledger.verify(rows);
  // Stopped now, so every replica has written the key usage it held in memory.
  await cluster.stop();
  const usage = await keyUsage(cluster, limited.id);
  const haproxy502 = countHaproxy502(join(options.dir, 'haproxy.log'));

  const checks = judge({ cluster, samples, staleReads, verification, events, killed, drained, t0, t1, burst, rpm: options.rpm, usage, balancer });
  report({ cluster, samples, ledger, verification, events, killed, drained, t0, t1, burst, options, haproxy502, balancer, checks });
  return checks.every((check) => check.pass) ? 0 : 1;
}

/** kill -9 one replica at 25 % and restart it 10 s later; SIGTERM another at 55 % and restart it. */
async function failures(
  cluster: Cluster,
  { killed, drained, t0, durationMs }: { killed: Replica; drained: Replica; t0: number; durationMs: number },
): Promise<Events> {
  const at = (ms: number) => new Promise((done) => setTimeout(done, Math.max(0, t0 + ms - performance.now())));
  await at(durationMs * 0.25);
  log(`kill -9 ${killed.name} (pid ${killed.process?.pid})`);
  const inFlightOnKilled = (await cluster.balancerStats()).get(killed.name)?.sessions ?? -1;
  const killCall = performance.now();
  await cluster.kill(killed);
  const killExit = performance.now();
  await at(durationMs * 0.25 + Math.min(10_000, durationMs * 0.15));
  log(`restart ${killed.name}`);
  await cluster.startReplica(killed);
  const killedReady = performance.now();
  await cluster.waitForBalancer(killed, 'UP');
  const killedUp = performance.now();
  await at(durationMs * 0.55);
  log(`SIGTERM ${drained.name} (drains, then exits), then restart it`);
  const drainCall = performance.now();
  await cluster.terminate(drained);
  const drainExit = performance.now();
  await cluster.startReplica(drained);
  await cluster.waitForBalancer(drained, 'UP');
  const drainedUp = performance.now();
  return { inFlightOnKilled, killCall, killExit, killedReady, killedUp, drainCall, drainExit, drainedUp };
}

/** `count` requests of one key, 25 at a time, through the balancer. */
async function rateBurst(base: URL, key: string, count: number): Promise<Burst> {
  const agent = keepAliveAgent(25);
  const burst: Burst = { admitted: new Map(), refused: 0, malformedRefusals: 0, other: [], seconds: 0 };
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: 25 }, async () => {
      while (next < count) {
        next += 1;
        const result = await exchange(agent, base, 'GET', '/v1/models', { headers: { Authorization: `Bearer ${key}` }, timeoutMs: REQUEST_TIMEOUT_MS });
        if (result.status === 200) burst.admitted.set(result.servedBy ?? '?', (burst.admitted.get(result.servedBy ?? '?') ?? 0) + 1);
        else if (result.status === 429) {
          burst.refused += 1;
          const code = (JSON.parse(result.body) as { error?: { code?: string } }).error?.code;
          if (!result.retryAfter || code !== 'rate_limited') burst.malformedRefusals += 1;
        } else burst.other.push(result);
      }
    }),
  );
  burst.seconds = (performance.now() - start) / 1000;
  agent.destroy();
  return burst;
}

/** A key made by the real CLI against the cluster's database. */
async function createKey(cluster: Cluster, rpm: number): Promise<{ key: string; id: number }> {
  const key = (await keysCli(cluster, ['create', '--name', `replica-test-rpm-${rpm}`, '--rpm', String(rpm)])).trim();
  const listed = JSON.parse(await keysCli(cluster, ['list', '--json'])) as { id: number; prefix: string }[];
  const entry = listed.find((row) => key.startsWith(row.prefix));
  if (!entry) throw new Error('the new key is not in `keys list`');
  return { key, id: entry.id };
}

async function keyUsage(cluster: Cluster, id: number): Promise<number | undefined> {
  const listed = JSON.parse(await keysCli(cluster, ['list', '--json'])) as { id: number; requests?: number; usage?: { requests?: number } }[];
  const entry = listed.find((row) => row.id === id);
  return entry?.requests ?? entry?.usage?.requests;
}

async function keysCli(cluster: Cluster, args: string[]): Promise<string> {
  const root = repositoryRoot(dirname(fileURLToPath(import.meta.url)));
  const { stdout } = await promisify(execFile)(process.execPath, [join(root, 'dist/scripts/keys.js'), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: cluster.databaseUrl },
  });
  return stdout;
}

async function usersInDatabase(url: string): Promise<{ id: number; name: string; email: string }[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ id: number; name: string; email: string }>('SELECT id, name, email FROM users')).rows;
  } finally {
    await client.end();
  }
}

/** Rate-limit counts left in the test's Redis database by an earlier run (key ids start at 1 again). */
async function forgetRateLimits(url: string): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
  await redis.connect();
  try {
    const keys = await redis.keys('lis-rpm-*');
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}

/** HAProxy's own log lines answering 502, by replica: a cross-check of the failures the clients saw. */
function countHaproxy502(path: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const match of readFileSync(path, 'utf8').matchAll(/ api replicas\/(\S+) \S+ 502 /g)) counts.set(match[1]!, (counts.get(match[1]!) ?? 0) + 1);
  return counts;
}

function integer(name: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`${name} must be an integer from ${min} to ${max}`);
  return n;
}

const log = (message: string) => process.stderr.write(`replica test: ${message}\n`);

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `${error instanceof UsageError ? `${error.message}\n${USAGE}` : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
