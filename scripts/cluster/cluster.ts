/**
 * A replica set on this machine: N server processes (the built `dist/src/server.js`) on
 * loopback ports, sharing one PostgreSQL database and one Redis, with HAProxy in front,
 * configured from deploy/haproxy.cfg. Used by `npm run cluster` and `npm run test:replicas`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync, readFileSync, writeFileSync, type WriteStream } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { renderHaproxyConfig } from './haproxy-config.js';

export interface ClusterOptions {
  replicas: number;
  /** The repository root (holds dist/ and deploy/). */
  root: string;
  /** Logs and the rendered HAProxy configuration go here. */
  dir: string;
  /** A PostgreSQL URL used to create the cluster's database (any database on the server). */
  postgresUrl: string;
  /** The database the replicas share; created if missing. */
  database: string;
  /** Drop and re-create the database first: the replicas then migrate it at the same moment. */
  freshDatabase: boolean;
  redisUrl: string;
  /** Balancer port (0: a free one). */
  frontPort: number;
  statsPort: number;
  /** Replica i listens on firstReplicaPort + i (0: free ports). */
  firstReplicaPort: number;
  /** Seconds a replica keeps serving after SIGTERM with /readyz at 503. */
  shutdownDelaySeconds: number;
  /** More environment for every replica (API_KEYS, MODELS_DIR, MODELS_MANIFEST, LOG_LEVEL…). */
  env: Record<string, string>;
  haproxy: string;
}

export interface Replica {
  /** HAProxy's name for it: replica1, replica2… */
  readonly name: string;
  readonly port: number;
  readonly url: string;
  readonly log: string;
  process: ChildProcess | undefined;
  exited: Promise<void>;
}

export interface BalancerStats {
  status: string;
  sessions: number;
  failedResponses: number;
  serverAborts: number;
  retries: number;
  redispatches: number;
}

const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 40_000;

export class Cluster {
  readonly replicas: Replica[];
  readonly frontUrl: string;
  readonly statsUrl: string;
  readonly databaseUrl: string;
  readonly #options: ClusterOptions;
  readonly #logs = new Map<string, WriteStream>();
  #haproxy: ChildProcess | undefined;
  #haproxyExited: Promise<void> = Promise.resolve();
  #stopping = false;

  private constructor(options: ClusterOptions, ports: { front: number; stats: number; replicas: number[] }) {
    this.#options = options;
    this.frontUrl = `http://127.0.0.1:${ports.front}`;
    this.statsUrl = `http://127.0.0.1:${ports.stats}`;
    const url = new URL(options.postgresUrl);
    url.pathname = `/${options.database}`;
    this.databaseUrl = url.toString();
    this.replicas = ports.replicas.map((port, i) => ({
      name: `replica${i + 1}`,
      port,
      url: `http://127.0.0.1:${port}`,
      log: join(options.dir, `replica${i + 1}.log`),
      process: undefined,
      exited: Promise.resolve(),
    }));
  }

  /** Creates the database, starts every replica at once, waits until each is ready and HAProxy sees it up. */
  static async start(options: ClusterOptions): Promise<Cluster> {
    const server = join(options.root, 'dist/src/server.js');
    if (!existsSync(server)) throw new Error(`${server} is missing: run \`npm run build\` first`);
    const free = await freePorts(options.replicas + 2);
    const replicaPorts = options.firstReplicaPort === 0 ? free.slice(2) : Array.from({ length: options.replicas }, (_, i) => options.firstReplicaPort + i);
    const cluster = new Cluster(options, { front: options.frontPort || free[0]!, stats: options.statsPort || free[1]!, replicas: replicaPorts });
    // Children die with us however we end (a crash, ^C), not only through stop().
    process.on('exit', () => cluster.#killAll());
    try {
      await cluster.#createDatabase();
      await Promise.all(cluster.replicas.map((replica) => cluster.startReplica(replica)));
      await cluster.#startHaproxy();
      await Promise.all(cluster.replicas.map((replica) => cluster.waitForBalancer(replica, 'UP')));
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  /** Starts (or restarts) one replica and resolves once its /readyz answers 200. */
  async startReplica(replica: Replica): Promise<void> {
    const log = this.#log(replica.log);
    const child = spawn(process.execPath, [join(this.#options.root, 'dist/src/server.js')], {
      cwd: this.#options.root,
      env: {
        PATH: process.env.PATH ?? '',
        HOST: '127.0.0.1',
        PORT: String(replica.port),
        DATABASE_URL: this.databaseUrl,
        REDIS_URL: this.#options.redisUrl,
        SHUTDOWN_DELAY_SECONDS: String(this.#options.shutdownDelaySeconds),
        ...this.#options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: a terminal's ^C reaches only us, and we stop replicas in order.
      detached: true,
    });
    child.stdout!.pipe(log, { end: false });
    child.stderr!.pipe(log, { end: false });
    replica.process = child;
    replica.exited = once(child, 'exit').then(
      () => undefined,
      () => undefined,
    );
    await waitUntil(
      async () => {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${replica.name} exited during start-up (see ${replica.log})`);
        return (await probe(`${replica.url}/readyz`)) === 200;
      },
      READY_TIMEOUT_MS,
      `${replica.name} did not become ready within ${READY_TIMEOUT_MS / 1000} s (see ${replica.log})`,
    );
  }

  /** `kill -9`: no drain, no goodbye; resolves when the process is gone. */
  async kill(replica: Replica): Promise<void> {
    replica.process?.kill('SIGKILL');
    await replica.exited;
  }

  /** SIGTERM: the replica drains (readyz 503) for the shutdown delay, finishes in-flight requests, exits. */
  async terminate(replica: Replica): Promise<void> {
    replica.process?.kill('SIGTERM');
    await withTimeout(replica.exited, STOP_TIMEOUT_MS, `${replica.name} did not exit after SIGTERM`);
  }

  /** Waits until HAProxy's health checks show the replica as `state` (UP, DOWN…). */
  async waitForBalancer(replica: Replica, state: 'UP' | 'DOWN', timeoutMs = READY_TIMEOUT_MS): Promise<void> {
    await waitUntil(
      async () => (await this.balancerStats()).get(replica.name)?.status.startsWith(state) ?? false,
      timeoutMs,
      `HAProxy did not see ${replica.name} ${state} within ${timeoutMs / 1000} s`,
    );
  }

  /**
   * Each replica as HAProxy's stats (CSV) show it: its state ("UP", "DOWN", "UP 1/2"…), its
   * requests in progress, and its counters of failed responses (eresp), transfers the server
   * aborted (srv_abrt), retries (wretr) and redispatches (wredis).
   */
  async balancerStats(): Promise<Map<string, BalancerStats>> {
    const response = await fetch(`${this.statsUrl}/;csv`);
    const rows = (await response.text()).split('\n').map((line) => line.split(','));
    const header = rows[0]!.map((name) => name.replace(/^# /, ''));
    const column = (row: string[], name: string) => row[header.indexOf(name)] ?? '';
    const stats = new Map<string, BalancerStats>();
    for (const row of rows.slice(1)) {
      if (column(row, 'pxname') !== 'replicas' || !column(row, 'svname').startsWith('replica')) continue;
      const count = (name: string) => Number(column(row, name) || 0);
      stats.set(column(row, 'svname'), {
        status: column(row, 'status'),
        sessions: count('scur'),
        failedResponses: count('eresp'),
        serverAborts: count('srv_abrt'),
        retries: count('wretr'),
        redispatches: count('wredis'),
      });
    }
    return stats;
  }

  /** Stops replicas (SIGTERM, so they drain and flush), then HAProxy. Safe to call twice. */
  async stop(): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    await Promise.all(
      this.replicas.map(async (replica) => {
        if (!replica.process || replica.process.exitCode !== null || replica.process.signalCode !== null) return;
        await this.terminate(replica).catch(async () => this.kill(replica));
      }),
    );
    this.#haproxy?.kill('SIGTERM');
    await withTimeout(this.#haproxyExited, 5_000, 'haproxy did not stop').catch(() => this.#haproxy?.kill('SIGKILL'));
    for (const log of this.#logs.values()) log.end();
  }

  async #createDatabase(): Promise<void> {
    const client = new pg.Client({ connectionString: this.#options.postgresUrl });
    await client.connect();
    try {
      const name = pg.escapeIdentifier(this.#options.database);
      // WITH (FORCE) ends sessions a previous run left behind (PostgreSQL 13+).
      if (this.#options.freshDatabase) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [this.#options.database]);
      if (exists.rowCount === 0) await client.query(`CREATE DATABASE ${name}`);
    } finally {
      await client.end();
    }
  }

  async #startHaproxy(): Promise<void> {
    const template = readFileSync(join(this.#options.root, 'deploy/haproxy.cfg'), 'utf8');
    const config = renderHaproxyConfig(template, {
      front: new URL(this.frontUrl).host,
      stats: new URL(this.statsUrl).host,
      servers: this.replicas.map((replica) => ({ name: replica.name, address: `127.0.0.1:${replica.port}` })),
    });
    const path = join(this.#options.dir, 'haproxy.cfg');
    writeFileSync(path, config);
    const log = this.#log(join(this.#options.dir, 'haproxy.log'));
    // -db: foreground, logs on stdout (the config's `log stdout`).
    const child = spawn(this.#options.haproxy, ['-db', '-f', path], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    child.stdout!.pipe(log, { end: false });
    child.stderr!.pipe(log, { end: false });
    this.#haproxy = child;
    // once() rejects on 'error' (a spawn failure): the process then never ran, nothing to wait for.
    this.#haproxyExited = once(child, 'exit').then(
      () => undefined,
      () => undefined,
    );
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (error: NodeJS.ErrnoException) =>
        reject(error.code === 'ENOENT' ? new Error(`${this.#options.haproxy} not found: apt-get install haproxy`) : error),
      );
    });
    await waitUntil(
      async () => {
        if (child.exitCode !== null) throw new Error(`haproxy exited at start-up (see ${join(this.#options.dir, 'haproxy.log')})`);
        return (await probe(`${this.statsUrl}/;csv`)) === 200;
      },
      10_000,
      'haproxy did not serve its stats page within 10 s',
    );
  }

  #log(path: string): WriteStream {
    let log = this.#logs.get(path);
    if (!log) {
      log = createWriteStream(path, { flags: 'a' });
      this.#logs.set(path, log);
    }
    return log;
  }

  #killAll(): void {
    for (const replica of this.replicas) if (replica.process?.exitCode === null) replica.process.kill('SIGKILL');
    if (this.#haproxy?.exitCode === null) this.#haproxy.kill('SIGKILL');
  }
}

/** The status of a GET, or 0 when nothing answered. */
async function probe(url: string): Promise<number> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, message: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(message);
    await new Promise((done) => setTimeout(done, 100));
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** `count` distinct free ports: each is held open until all are chosen, so none repeats. */
async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer().listen(0, '127.0.0.1'));
  try {
    await Promise.all(servers.map((server) => once(server, 'listening')));
    return servers.map((server) => {
      const address = server.address();
      if (typeof address !== 'object' || !address) throw new Error('no free port');
      return address.port;
    });
  } finally {
    for (const server of servers) server.close();
  }
}

/** The repository root when run from `scripts/` (tsx) or `dist/scripts/` (node). */
export function repositoryRoot(scriptDir: string): string {
  const up = resolve(scriptDir, '..');
  return existsSync(join(up, 'deploy')) ? up : resolve(up, '..');
}
