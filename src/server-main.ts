/**
 * The only process-level code, run by server.ts once the Node floor holds: read config, open the
 * database, build the model registry, serve, and shut down cleanly on SIGTERM/SIGINT (in-flight
 * requests finish, then the database and models are closed).
 */
import { Redis } from 'ioredis';
import { ConfigError, loadConfig } from './config/load-config.js';
import { createApp } from './http/create-app.js';
import { createHttpServer } from './http/http-server.js';
import { ENGINES } from './inference/engines.js';
import { loadManifest } from './inference/local-entries.js';
import { ManifestError } from './inference/manifest.js';
import { checkEntry } from './inference/model-catalog.js';
import { ModelRegistry } from './inference/model-registry.js';
import { createLogger, type Logger } from './logger.js';
import { listenError, StartupError } from './startup-error.js';
import { openDatabase } from './users/open-database.js';

const SHUTDOWN_GRACE_MS = 30_000;
const CLOSE_IDLE_EVERY_MS = 50;

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger(config.logLevel);

  const db = await openDatabase(config.databasePath);
  // A user-installed entry that cannot be used disables its model alone, with one line here.
  const manifest = await loadManifest(config.manifestPath, config.modelsDir, {
    check: (entry) => checkEntry(entry, ENGINES),
    onSkipped: ({ file, reason }) => logger.warn('model entry skipped', { file, reason }),
  });
  const models = new ModelRegistry({
    manifest,
    modelsDir: config.modelsDir,
    engines: ENGINES,
    aliasOverrides: config.modelAliases,
    idleTtlSeconds: config.modelIdleTtlSeconds,
    maxMemoryBytes: config.modelsMaxMemoryBytes,
    logLevel: config.logLevel,
  });
  models.onLoad((event) =>
    event.ok
      ? logger.info('model loaded', { model: event.modelId, task: event.task, seconds: round(event.seconds, 2), memoryMB: megabytes(event.memoryBytes) })
      : logger.warn('model load failed', { model: event.modelId, task: event.task, seconds: round(event.seconds, 2), error: event.error }),
  );
  models.onUnload(({ modelId, task, reason, memoryBytes }) =>
    logger.info('model unloaded', { model: modelId, task, reason, memoryMB: megabytes(memoryBytes) }),
  );
  // A misspelt name stops the server now rather than leaving it not-ready.
  for (const name of config.preloadModels) {
    if (!models.knows(name)) throw new ConfigError(`PRELOAD_MODELS: "${name}" is no model or alias of the manifest`);
  }
  if (config.teiModel !== undefined && !['embeddings', 'text-classification'].includes(models.knows(config.teiModel) ? models.taskOf(config.teiModel) : '')) {
    throw new ConfigError(`TEI_MODEL: "${config.teiModel}" is no embedding or classification model or alias of the manifest`);
  }
  // Rate limits shared by replicas. If Redis is down, requests of keys with a limit fail (500,
  // logged) rather than pass unlimited; keys without a limit are not affected.
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true }) : undefined;
  redis?.on('error', (error) => logger.warn('redis connection error', { error: error.message }));
  const app = createApp({ db, models, config, logger, redis });

  // Batches left running by the last process (killed or stopped) go on from their last written line.
  // Started before the server listens: once it logs "listening", a SIGTERM finds its handler.
  await app.batches.start();
  let stopping = false;
  const handle = app.callback();
  const server = createHttpServer((req, res) => {
    // Draining (the delay after SIGTERM): a load balancer may still send a request on any
    // idle kept-alive connection until it sees /readyz fail, so none is closed under it; each
    // answer instead says `Connection: close`, and the connection ends after it.
    if (stopping) res.setHeader('Connection', 'close');
    void handle(req, res);
  }, config.limits.timeouts);
  server.on('upgrade', app.realtime.upgrade);
  await new Promise<void>((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => reject(listenError(error, config.host, config.port));
    server.once('error', failed);
    server.listen(config.port, config.host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info('listening', { url: `http://${config.host}:${port}`, database: config.databasePath, modelsDir: config.modelsDir });
  void logInstalledModels(models, logger);
  // While these load, /readyz answers 503 (health-routes.ts); a failed one is logged and the
  // server becomes ready anyway: its requests get the load error, and other models still serve.
  if (config.preloadModels.length > 0) {
    void models
      .preload(config.preloadModels, (name, error) => logger.error('preload failed', { model: name, error: error.message }))
      .then(() => logger.info('models preloaded', { models: config.preloadModels }));
  }

  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal, drainDelayMs: config.shutdownDelayMs });
    // /readyz answers 503 at once; new requests are still served for the drain delay, so a load
    // balancer that probes every few seconds takes this replica out before it stops listening.
    app.beginDraining();
    setTimeout(() => close(), config.shutdownDelayMs);
  };

  const close = () => {
    app.realtime.close();
    const force = setTimeout(() => {
      logger.warn('in-flight requests did not finish in time; closing connections');
      server.closeAllConnections();
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    server.close(async () => {
      await app.dispose();
      redis?.disconnect();
      await models.close();
      await db.destroy();
      logger.info('stopped');
      process.exit(0);
    });
    server.closeIdleConnections();
    // A kept-alive connection would otherwise hold the process open until its keep-alive
    // timeout (5 s) after its last response: each is closed once idle. Polled, not a 'finish'
    // listener on every response, which every request paid for while serving (bench:http).
    setInterval(() => server.closeIdleConnections(), CLOSE_IDLE_EVERY_MS).unref();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

const round = (value: number, digits: number) => Number(value.toFixed(digits));
const megabytes = (bytes: number) => Math.round(bytes / 1e6);

/** What a newcomer needs at start: which models answer now, and how to get one when none do. */
async function logInstalledModels(models: ModelRegistry, logger: Logger): Promise<void> {
  const ids = new Set(models.ids());
  const installed = (await models.list()).filter((model) => ids.has(model.id) && model.installed).map((model) => model.id);
  if (installed.length > 0) logger.info('models installed', { models: installed, manifest: ids.size });
  else logger.warn('no model installed: every inference request will answer 503', { manifest: ids.size, install: 'npm run download-models -- --list' });
}

main().catch((error) => {
  const message =
    error instanceof ConfigError || error instanceof ManifestError
      ? `Configuration error: ${error.message}`
      : error instanceof StartupError
        ? `Cannot start: ${error.message}`
        : (error?.stack ?? String(error));
  process.stderr.write(`${message}\n`);
  process.exit(1);
});
