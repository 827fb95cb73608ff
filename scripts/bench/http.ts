/**
 * npm run bench:http: the HTTP layer's own cost, against a bare `node:http` + better-sqlite3
 * server answering the same two routes with the same prepared query, measured in the same run.
 *
 *   GET /        the plain-text greeting (framework cost only)
 *   GET /users   100 stored users as JSON (framework + database + JSON)
 *
 * Our side is the real app, built as src/server.ts builds it: loadConfig, openDatabase (WAL,
 * busy-retrying dialect), createApp with an API key configured (so the /v1 key boundary and the
 * slow-client guard run on every request) and the same server time-outs.
 * The servers read one temp SQLite file seeded with 100 users, and each runs in its own child
 * process so none shares an event loop with the load generator or another.
 *
 * A third server, the floor, is Koa itself: one middleware answering both routes from the same
 * prepared statement, no router and none of our middleware. Koa is fixed by the design card, so
 * the floor is the best any app built on it can do; the summary gives ours against it, which is
 * what changes to our code can still win.
 *
 * The load generator is wrk (Debian: `apt-get install wrk`), one thread, 50 keep-alive
 * connections; without it a small keep-alive node:http client in this process stands in (it
 * costs more CPU per request than wrk, which compresses the ratios on a 2-core machine, so
 * the output says which one ran). Rounds are interleaved (app, bare, koa, then the reverse)
 * and each round's ratio compares runs seconds apart, so all see the same machine load.
 * The headline ratio takes each side's best round (most requests/s, lowest p99), because other
 * work on a shared machine only ever slows a side down; a single round's ratio can be flattered
 * by the baseline's run alone being disturbed, so the per-round range is printed too. Server CPU per
 * request (process.cpuUsage of the server child over the run) is printed too: it varies less
 * with machine load than requests/s.
 *
 * Connections: each run's 50 connections are all open before its load starts (wrk's `delay()`
 * holds each connection's first request for 200 ms, not counted in latency or requests/s), so
 * the figures are those of kept-alive connections. Opened together under load they are not
 * comparable: Node (libuv >= 1.45) accepts one connection per event-loop turn, so while the first
 * connections keep the server busy the n-th waits n turns (300-600 ms for the last of 50), and
 * wrk 4 corrects for coordinated omission by adding (latency / mean interval) samples per slow
 * request, so those 50 first requests alone decided the p99 of every side, by how long that run's
 * connections happened to take to be accepted (docs/benchmarks.md, 2026-11-28). BENCH_OPEN=burst
 * measures that way again. Per side and round a second line gives wrk's p50/p90/p99/max, the
 * server's event-loop delay (a stall delays every request at once and shows there; unfairness to
 * some connections does not) and how many connections it accepted over how long.
 *
 * Goals: GET /users >= 0.9x the floor's requests/s with p99 <= 1.25x bare's (issue 28: our
 * middleware stays, so the floor is what it is measured against); GET / >= 0.8x bare (issue 9).
 * Each round's line carries the load average it ran under. The whole run is bounded: it exits
 * with an error if it has not finished a minute after its planned duration.
 *
 * Env: BENCH_ROUNDS (default 3), BENCH_SECONDS per run (default 5), BENCH_CONNECTIONS (50),
 * BENCH_PATHS (default "/,/users"), BENCH_CLIENT=node to force the built-in client,
 * BENCH_CPU_PROF=<dir> to write a `node --cpu-prof` profile of each server process there (one
 * sub-directory per side: app, bare, koa), BENCH_VARIANTS (e.g. "floor,+observeRequests,+kyselyStore")
 * to serve our GET /users path built up piece by piece (lib/http-variants.ts) as extra sides in
 * the same rounds, BENCH_OPEN=burst (see Connections).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadAverage } from '../eval/lib/load-average.js';
import { ALL_VARIANTS, buildVariant, isVariant, type Variant } from './lib/http-variants.js';

const USERS = 100;
const ROUNDS = positiveInt('BENCH_ROUNDS', 3);
const SECONDS = positiveInt('BENCH_SECONDS', 5);
const CONNECTIONS = positiveInt('BENCH_CONNECTIONS', 50);
const WARMUP_SECONDS = 2;
/**
 * How long each connection's first request waits (wrk's `delay()` hook), so that every connection
 * is accepted before the load starts; see "Connections" in the header. BENCH_OPEN=burst: no wait.
 */
const OPEN_MS = process.env.BENCH_OPEN === 'burst' ? 0 : 200;
const ALL_PATHS = ['/', '/users'] as const;
/** BENCH_PATHS=/users measures one route alone (e.g. for a --cpu-prof of it). */
const PATHS = ALL_PATHS.filter((path) => (process.env.BENCH_PATHS ?? '/,/users').split(',').includes(path));
/** `rps`: ours over `against`'s best requests/s; `p99`: ours over bare's best p99. */
const GOALS: Record<(typeof ALL_PATHS)[number], { rps: number; against: 'bare' | 'koa'; p99?: number }> = {
  '/': { rps: 0.8, against: 'bare' },
  '/users': { rps: 0.9, against: 'koa', p99: 1.25 },
};
/** The same statement Kysely compiles for `selectFrom('users').selectAll().orderBy('id')`. */
const LIST_USERS_SQL = 'select * from "users" order by "id"';
const GREETING = 'Hello from the local inference server. See /docs for the API.';

type Side = 'app' | 'bare' | 'koa';
const SIDES: readonly Side[] = ['app', 'bare', 'koa'];
/** Extra sides for GET /users: our path built up piece by piece (lib/http-variants.ts), e.g. "floor,+observeRequests". */
const VARIANTS = (process.env.BENCH_VARIANTS ?? '')
  .split(',')
  .filter((name) => name !== '')
  .map((name) => {
    if (!isVariant(name) || name === 'app')
      throw new Error(`BENCH_VARIANTS: unknown variant "${name}" (one of ${ALL_VARIANTS.filter((v) => v !== 'app').join(', ')})`);
    return name;
  });
type AnySide = Side | Variant;
interface Run {
  rps: number;
  p99Ms: number;
  cpuUsPerRequest: number;
  errors: number;
  /** wrk's latency percentiles and maximum (ms), and the server's event-loop delay over the run. */
  latency: { p50: number; p90: number; p99: number; max: number };
  loop: LoopDelay;
}
interface LoopDelay {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Connections accepted during the run, and the time from the first to the last. */
  accepted: number;
  acceptSpanMs: number;
}

function positiveInt(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

// ---------------------------------------------------------------------------------------------
// Server children
// ---------------------------------------------------------------------------------------------

/** Runs in the child: serves, reports its port, answers probes of its CPU use and event-loop delay. */
async function serveChild(side: AnySide, databasePath: string): Promise<void> {
  const server =
    side === 'app'
      ? await serveApp(databasePath)
      : side === 'bare'
        ? await serveBare(databasePath)
        : side === 'koa'
          ? await serveKoaFloor(databasePath)
          : createServer(await buildVariant(side, databasePath));
  // A stall delays every request in flight at once; its trace is here, not in CPU time.
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  // Node accepts one connection per event-loop turn, so how long a run's connections took to be
  // accepted tells how long its last ones waited before their first request was even read.
  let accepted: number[] = [];
  server.on('connection', () => accepted.push(performance.now()));
  const port = await listen(server);
  process.on('message', (message) => {
    if (message === 'cpu') {
      const delay: LoopDelay = {
        p50Ms: loop.percentile(50) / 1e6,
        p99Ms: loop.percentile(99) / 1e6,
        maxMs: loop.max / 1e6,
        accepted: accepted.length,
        acceptSpanMs: accepted.length > 0 ? accepted.at(-1)! - accepted[0]! : 0,
      };
      loop.reset();
      accepted = [];
      process.send!({ cpu: { usage: process.cpuUsage(), loop: delay } });
    }
    // Exit through the event loop so --cpu-prof writes its profile.
    if (message === 'stop') setImmediate(() => process.exit(0));
  });
  // A bench that stopped (or was stopped) takes its servers with it.
  process.on('disconnect', () => process.exit(0));
  process.send!({ port });
}

async function serveApp(databasePath: string): Promise<Server> {
  const { loadConfig } = await import('../../src/config/load-config.js');
  const { createApp } = await import('../../src/http/create-app.js');
  const { ENGINES } = await import('../../src/inference/engines.js');
  const { ModelRegistry } = await import('../../src/inference/model-registry.js');
  const { createLogger } = await import('../../src/logger.js');
  const { openDatabase } = await import('../../src/users/open-database.js');

  const config = loadConfig({
    DATABASE_URL: `sqlite:${databasePath}`,
    API_KEYS: 'bench-key-0123456789abcdef',
    LOG_LEVEL: 'silent',
    PORT: '0',
  });
  const db = await openDatabase(config.databasePath);
  const models = new ModelRegistry({ manifest: { models: [] }, modelsDir: config.modelsDir, engines: ENGINES });
  const app = createApp({ db, models, config, logger: createLogger(config.logLevel) });
  const handle = app.callback();
  // As in src/server.ts (whose shutdown needs no per-response listener).
  const server = createServer((req, res) => void handle(req, res));
  const { timeouts } = config.limits;
  server.headersTimeout = timeouts.headersMs;
  server.requestTimeout = timeouts.requestMs;
  server.keepAliveTimeout = timeouts.keepAliveMs;
  return server;
}

/** The statement both baselines answer `GET /users` from, on a connection of their own. */
async function prepareListUsers(databasePath: string) {
  const { default: SQLite } = await import('better-sqlite3');
  const sqlite = new SQLite(databasePath);
  sqlite.pragma('journal_mode = WAL');
  return sqlite.prepare(LIST_USERS_SQL);
}

async function serveBare(databasePath: string): Promise<Server> {
  const listUsers = await prepareListUsers(databasePath);
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/') {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(GREETING) });
      res.end(GREETING);
    } else if (req.method === 'GET' && req.url === '/users') {
      const body = JSON.stringify(listUsers.all());
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    } else {
      res.writeHead(404).end();
    }
  });
  return server;
}

/** Koa's own cost: one middleware, the same statement, Koa's respond() writing the body. */
async function serveKoaFloor(databasePath: string): Promise<Server> {
  const { default: Koa } = await import('koa');
  const listUsers = await prepareListUsers(databasePath);
  const koa = new Koa();
  koa.use((ctx) => {
    if (ctx.method !== 'GET') return;
    if (ctx.path === '/') ctx.body = GREETING;
    else if (ctx.path === '/users') ctx.body = listUsers.all();
  });
  return createServer(koa.callback());
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

class ServerChild {
  readonly #child: ChildProcess;
  readonly port: Promise<number>;

  constructor(side: AnySide, databasePath: string, profileDir?: string) {
    const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, side)}`] : [];
    this.#child = spawn(process.execPath, [...profile, '--import', 'tsx', fileURLToPath(import.meta.url), side, databasePath], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.port = this.#next('port');
  }

  /** CPU time so far (µs) and the event-loop delay since the last probe. */
  async probe(): Promise<{ cpuMicros: number; loop: LoopDelay }> {
    this.#child.send('cpu');
    const { usage, loop } = await this.#next<{ usage: NodeJS.CpuUsage; loop: LoopDelay }>('cpu');
    return { cpuMicros: usage.user + usage.system, loop };
  }

  stop(): Promise<void> {
    if (this.#child.exitCode !== null || !this.#child.connected) return Promise.resolve();
    return new Promise((resolve) => {
      this.#child.once('exit', () => resolve());
      this.#child.send('stop');
    });
  }

  #next<T>(key: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const onMessage = (message: Record<string, T>) => {
        if (!(key in message)) return;
        this.#child.off('message', onMessage);
        this.#child.off('exit', onExit);
        resolve(message[key]!);
      };
      const onExit = (code: number | null) => reject(new Error(`server child exited (${code}) before sending ${key}`));
      this.#child.on('message', onMessage);
      this.#child.once('exit', onExit);
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Load generators
// ---------------------------------------------------------------------------------------------

interface Load {
  requests: number;
  seconds: number;
  p99Ms: number;
  errors: number;
  latency: Run['latency'];
}

const useWrk = process.env.BENCH_CLIENT !== 'node' && spawnSync('wrk', ['--version']).error === undefined;

function drive(url: string, seconds: number, dir: string): Promise<Load> {
  return useWrk ? driveWithWrk(url, seconds, dir) : driveWithNode(url, seconds);
}

/**
 * wrk's Lua `delay()` runs before each request is sent and is not counted in its latency; one
 * wrk thread has one Lua state, so its first CONNECTIONS calls are the connections' first requests.
 */
function openingScript(dir: string): string {
  const path = join(dir, 'open-then-load.lua');
  writeFileSync(path, `local left = ${CONNECTIONS}\nfunction delay()\n  if left > 0 then left = left - 1 return ${OPEN_MS} end\n  return 0\nend\n`);
  return path;
}

function driveWithWrk(url: string, seconds: number, dir: string): Promise<Load> {
  const script = OPEN_MS > 0 ? ['-s', openingScript(dir)] : [];
  const args = ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', ...script, url];
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('exit', () => {
      const done = /(\d+) requests in ([\d.]+)(us|ms|s|m)/.exec(out);
      const p99 = /^\s*99%\s+([\d.]+)(us|ms|s)/m.exec(out);
      if (!done || !p99) return reject(new Error(`could not read wrk's output:\n${out}`));
      const errors = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0) + socketErrors(out);
      const percentile = (p: number) => {
        const line = new RegExp(`^\\s*${p}%\\s+([\\d.]+)(us|ms|s)`, 'm').exec(out);
        return line ? toMs(line[1]!, line[2]!) : NaN;
      };
      const max = /Latency\s+\S+\s+\S+\s+([\d.]+)(us|ms|s)/.exec(out);
      const latency = { p50: percentile(50), p90: percentile(90), p99: percentile(99), max: max ? toMs(max[1]!, max[2]!) : NaN };
      // The opening wait is idle time, not load.
      const loadSeconds = toMs(done[2]!, done[3]!) / 1000 - OPEN_MS / 1000;
      resolve({ requests: Number(done[1]), seconds: loadSeconds, p99Ms: toMs(p99[1]!, p99[2]!), errors, latency });
    });
  });
}

function socketErrors(out: string): number {
  const line = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return line ? line.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
}

function toMs(value: string, unit: string): number {
  const scale: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };
  return Number(value) * scale[unit]!;
}

/** Fallback: CONNECTIONS keep-alive loops, each sending its next request when the last is read. */
async function driveWithNode(url: string, seconds: number): Promise<Load> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const latencies: number[] = [];
  let errors = 0;
  const once = (timed = true) =>
    new Promise<void>((resolve) => {
      const sent = performance.now();
      request(url, { agent }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode !== 200) errors++;
          if (timed) latencies.push(performance.now() - sent);
          resolve();
        });
      })
        .on('error', () => {
          errors++;
          resolve();
        })
        .end();
    });
  // As with wrk: every connection is open before the timed load starts (unless BENCH_OPEN=burst).
  if (OPEN_MS > 0) await Promise.all(Array.from({ length: CONNECTIONS }, () => once(false)));
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < deadline) await once();
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const percentile = (p: number) => latencies[Math.floor((latencies.length * p) / 100)] ?? NaN;
  const latency = { p50: percentile(50), p90: percentile(90), p99: percentile(99), max: latencies.at(-1) ?? NaN };
  return { requests: latencies.length, seconds: elapsed, p99Ms: latency.p99, errors, latency };
}

// ---------------------------------------------------------------------------------------------
// Orchestration
// ---------------------------------------------------------------------------------------------

async function measure(server: ServerChild, path: string, seconds: number, dir: string): Promise<Run> {
  const port = await server.port;
  const before = await server.probe();
  const load = await drive(`http://127.0.0.1:${port}${path}`, seconds, dir);
  const after = await server.probe();
  const cpu = after.cpuMicros - before.cpuMicros;
  return {
    rps: load.requests / load.seconds,
    p99Ms: load.p99Ms,
    cpuUsPerRequest: cpu / Math.max(1, load.requests),
    errors: load.errors,
    latency: load.latency,
    loop: after.loop,
  };
}

async function seed(databasePath: string): Promise<void> {
  const { openDatabase } = await import('../../src/users/open-database.js');
  const { createUserStore } = await import('../../src/users/user-store.js');
  const db = await openDatabase(databasePath);
  const users = createUserStore(db);
  for (let i = 1; i <= USERS; i++) await users.create({ name: `Bench User ${i}`, email: `user${i}@bench.example` });
  await db.destroy();
}

/** Every server must answer the same bytes, or the comparison means nothing. */
async function checkSameAnswers(servers: Record<AnySide, ServerChild>): Promise<void> {
  for (const path of PATHS) {
    const answers = await Promise.all(
      sidesOf(path).map(async (side) => ({ side, text: await (await fetch(`http://127.0.0.1:${await servers[side].port}${path}`)).text() })),
    );
    for (const { side, text } of answers) {
      if (text !== answers[0]!.text) throw new Error(`GET ${path}: ${side} answers differently from ${answers[0]!.side}`);
    }
  }
  const users = JSON.parse(await (await fetch(`http://127.0.0.1:${await servers.bare.port}/users`)).text()) as unknown[];
  if (users.length !== USERS) throw new Error(`expected ${USERS} users, got ${users.length}`);
}

const ratio = (n: number) => `${n.toFixed(2)}×`;

/** The variants only answer GET /users. */
function sidesOf(path: string): readonly AnySide[] {
  return path === '/users' ? [...SIDES, ...VARIANTS] : SIDES;
}

/** Where a run's time went: a stall shows in the loop delay, unfairness only in the latency spread. */
function latencyLine(side: AnySide, run: Run): string {
  const { p50, p90, p99, max } = run.latency;
  const loop = run.loop;
  return (
    `  ${side.padEnd(17)} ${run.rps.toFixed(0).padStart(6)} req/s ${run.cpuUsPerRequest.toFixed(0).padStart(4)} µs CPU/req` +
    ` | latency p50 ${p50.toFixed(1)} p90 ${p90.toFixed(1)} p99 ${p99.toFixed(1)} max ${max.toFixed(1)} ms` +
    ` | event-loop delay p50 ${loop.p50Ms.toFixed(1)} p99 ${loop.p99Ms.toFixed(1)} max ${loop.maxMs.toFixed(1)} ms` +
    ` | ${loop.accepted} connections accepted over ${loop.acceptSpanMs.toFixed(0)} ms`
  );
}

async function main(): Promise<void> {
  // Bounded whatever the machine does: planned load time plus start-up and a minute of slack.
  const plannedSeconds = PATHS.reduce((sum, path) => sum + sidesOf(path).length * (WARMUP_SECONDS + ROUNDS * SECONDS), 0);
  setTimeout(
    () => {
      console.error(`bench:http did not finish within ${plannedSeconds + 60} s; stopping`);
      process.exit(2);
    },
    (plannedSeconds + 60) * 1000,
  ).unref();
  const dir = mkdtempSync(join(tmpdir(), 'bench-http-'));
  const databasePath = join(dir, 'bench.db');
  const servers: ServerChild[] = [];
  try {
    await seed(databasePath);
    const bySide = {} as Record<AnySide, ServerChild>;
    for (const side of [...SIDES, ...VARIANTS]) bySide[side] = new ServerChild(side, databasePath, process.env.BENCH_CPU_PROF);
    servers.push(...Object.values(bySide));
    await checkSameAnswers(bySide);

    console.log(
      `GET / and GET /users (${USERS} users), ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds of ${SECONDS} s per side; ` +
        `client: ${useWrk ? 'wrk -t1' : 'built-in node:http (wrk not found: apt-get install wrk)'}`,
    );
    console.log(`load average before: ${loadAverage()}`);
    for (const path of PATHS) for (const side of sidesOf(path)) await measure(bySide[side], path, WARMUP_SECONDS, dir);

    const results: Record<string, Record<AnySide, Run>[]> = { '/': [], '/users': [] };
    for (let round = 1; round <= ROUNDS; round++) {
      for (const path of PATHS) {
        const order = round % 2 === 1 ? sidesOf(path) : [...sidesOf(path)].reverse();
        const runs = {} as Record<AnySide, Run>;
        for (const side of order) runs[side] = await measure(bySide[side], path, SECONDS, dir);
        results[path]!.push(runs);
        const { app: a, bare: b } = runs;
        const errors = SIDES.filter((side) => runs[side].errors > 0).map((side) => `${side} ${runs[side].errors}`);
        console.log(
          `round ${round} GET ${path.padEnd(6)} ` +
            SIDES.map(
              (side) =>
                `${side} ${runs[side].rps.toFixed(0).padStart(6)} req/s p99 ${runs[side].p99Ms.toFixed(2)} ms ${runs[side].cpuUsPerRequest.toFixed(0)} µs CPU/req`,
            ).join(' | ') +
            ` | app/bare ${ratio(a.rps / b.rps)} req/s, ${ratio(a.p99Ms / b.p99Ms)} p99, app/koa ${ratio(a.rps / runs.koa.rps)} req/s` +
            ` | load ${loadAverage()}` +
            (errors.length > 0 ? ` | ERRORS ${errors.join(', ')}` : ''),
        );
        for (const side of sidesOf(path)) console.log(latencyLine(side, runs[side]));
      }
    }

    console.log(`\nload average after: ${loadAverage()}`);
    for (const path of PATHS) {
      const rounds = results[path]!;
      const rps = rounds.map((r) => r.app.rps / r.bare.rps);
      const p99 = rounds.map((r) => r.app.p99Ms / r.bare.p99Ms);
      const cpu = rounds.map((r) => r.app.cpuUsPerRequest / r.bare.cpuUsPerRequest);
      const goal = GOALS[path as keyof typeof GOALS];
      const bestRps = (side: AnySide) => Math.max(...rounds.map((r) => r[side].rps));
      const best = bestRps('app') / bestRps('bare');
      const bestP99 = Math.min(...rounds.map((r) => r.app.p99Ms)) / Math.min(...rounds.map((r) => r.bare.p99Ms));
      const ofFloor = bestRps('app') / bestRps('koa');
      // Steadier than requests/s on a loaded machine: other work slows a run, it adds little CPU per request.
      const bestCpu = (side: AnySide) => Math.min(...rounds.map((r) => r[side].cpuUsPerRequest));
      const floorRounds = rounds.map((r) => r.app.rps / r.koa.rps);
      const judged = goal.against === 'koa' ? ofFloor : best;
      const verdict = judged >= goal.rps && (goal.p99 === undefined || bestP99 <= goal.p99) ? 'meets' : 'MISSES';
      console.log(
        `GET ${path.padEnd(6)} req/s ${ratio(best)} of bare (best rounds; per round ${ratio(Math.min(...rps))}–${ratio(Math.max(...rps))}${goal.against === 'bare' ? `, goal ≥ ${goal.rps}×` : ''})` +
          `; p99 ${ratio(bestP99)} of bare (per round ${ratio(Math.min(...p99))}–${ratio(Math.max(...p99))}${goal.p99 ? `, goal ≤ ${goal.p99}×` : ''})` +
          `; server CPU/request ${ratio(Math.min(...cpu))}–${ratio(Math.max(...cpu))} of bare`,
      );
      console.log(
        `           Koa floor (one middleware, same statement): ${ratio(bestRps('koa') / bestRps('bare'))} of bare req/s; ` +
          `ours ${ratio(ofFloor)} of the floor (best rounds; per round ${ratio(Math.min(...floorRounds))}–${ratio(Math.max(...floorRounds))}${goal.against === 'koa' ? `, goal ≥ ${goal.rps}×` : ''})` +
          `; server CPU/request ${ratio(bestCpu('app') / bestCpu('koa'))} of the floor's (${bestCpu('app').toFixed(0)} vs ${bestCpu('koa').toFixed(0)} µs, best rounds)` +
          `; ${verdict} the goal`,
      );
      for (const variant of path === '/users' ? VARIANTS : []) {
        const bestP99Of = Math.min(...rounds.map((r) => r[variant].p99Ms));
        console.log(
          `           ${variant.padEnd(17)} ${ratio(bestRps(variant) / bestRps('koa'))} of the floor's req/s, p99 ${ratio(bestP99Of / Math.min(...rounds.map((r) => r.bare.p99Ms)))} of bare's` +
            ` (best rounds; p99 per round ${rounds.map((r) => r[variant].p99Ms.toFixed(1)).join(', ')} ms)`,
        );
      }
    }
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}

const [role, databasePath] = process.argv.slice(2);
if (role === 'app' || role === 'bare' || role === 'koa' || (role !== undefined && isVariant(role))) {
  void serveChild(role, databasePath!);
} else {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
