/**
 * A replica set on this machine, for trying the server as it runs behind a load balancer:
 *
 *   npm run cluster -- --replicas 3 [--port 8080] [--database cluster] [--fresh]
 *
 * builds the server, creates the PostgreSQL database if needed, starts N replicas on loopback
 * ports sharing it and Redis, and HAProxy in front (deploy/haproxy.cfg), prints the URLs, and
 * stops everything on Ctrl-C (replicas drain first). The replicas use the environment's
 * MODELS_DIR, MODELS_MANIFEST, API_KEYS and LOG_LEVEL like `npm start`; logs go to a folder
 * printed at start.
 *
 * PostgreSQL and Redis are taken from CLUSTER_POSTGRES_URL (default
 * postgres://postgres@127.0.0.1:5432/postgres, used to create the database) and
 * CLUSTER_REDIS_URL (default redis://127.0.0.1:6379).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Cluster, repositoryRoot } from './cluster/cluster.js';

const USAGE = 'Usage: npm run cluster -- [--replicas 3] [--port 8080] [--database cluster] [--fresh]';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      replicas: { type: 'string', default: '3' },
      port: { type: 'string', default: '8080' },
      database: { type: 'string', default: 'cluster' },
      fresh: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const replicas = Number(values.replicas);
  const port = Number(values.port);
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > 16) throw new UsageError('--replicas must be 1–16');
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new UsageError('--port must be a TCP port');
  if (!/^[a-z_][a-z0-9_]*$/.test(values.database)) throw new UsageError('--database must be a plain lower-case name');

  const dir = mkdtempSync(join(tmpdir(), 'lis-cluster-'));
  const passThrough = ['MODELS_DIR', 'MODELS_MANIFEST', 'API_KEYS', 'LOG_LEVEL', 'MODEL_ALIASES', 'CORS_ORIGINS', 'LIBRETRANSLATE_MODELS'];
  const env = Object.fromEntries(passThrough.flatMap((name) => (process.env[name] ? [[name, process.env[name]!]] : [])));
  process.stdout.write(`Starting ${replicas} replicas, PostgreSQL database "${values.database}", Redis, HAProxy (logs in ${dir})…\n`);
  const cluster = await Cluster.start({
    replicas,
    root: repositoryRoot(dirname(fileURLToPath(import.meta.url))),
    dir,
    postgresUrl: process.env.CLUSTER_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    database: values.database,
    freshDatabase: values.fresh,
    redisUrl: process.env.CLUSTER_REDIS_URL ?? 'redis://127.0.0.1:6379',
    frontPort: port,
    statsPort: port + 324 <= 65_535 ? port + 324 : 0,
    firstReplicaPort: 0,
    shutdownDelaySeconds: 3,
    env,
    haproxy: process.env.HAPROXY ?? 'haproxy',
  });

  process.stdout.write(
    [
      '',
      `  API (HAProxy):    ${cluster.frontUrl}`,
      `  HAProxy stats:    ${cluster.statsUrl}`,
      `  PostgreSQL:       ${cluster.databaseUrl}`,
      ...cluster.replicas.map((replica) => `  ${replica.name.padEnd(17)} ${replica.url}  (pid ${replica.process?.pid}, log ${replica.log})`),
      '',
      `  API keys: DATABASE_URL=${cluster.databaseUrl} npm run keys -- create --name me`,
      '  Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );

  let stopping = false;
  const stop = async (signal: string) => {
    stopping = true;
    process.stdout.write(`\n${signal}: stopping (replicas drain for 3 s)…\n`);
    await cluster.stop();
    process.stdout.write('stopped\n');
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  // A replica that dies on its own is reported, not restarted: this is a tool for looking.
  for (const replica of cluster.replicas) {
    void replica.exited.then(() => stopping || process.stdout.write(`${replica.name} exited (log ${replica.log})\n`));
  }
}

class UsageError extends Error {}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof UsageError ? `${error.message}\n${USAGE}` : error instanceof Error ? error.message : String(error)}\n`);
  process.exit(error instanceof UsageError ? 2 : 1);
});
