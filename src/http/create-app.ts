import { ServerResponse } from 'node:http';
import Koa from 'koa';
import type { Kysely } from 'kysely';
import type { Redis } from 'ioredis';
import { KeyAccess } from '../auth/key-access.js';
import { createKeyStore } from '../auth/key-store.js';
import { requireApiKey } from '../auth/require-api-key.js';
import type { Config } from '../config/load-config.js';
import type { ModelRegistry } from '../inference/model-registry.js';
import { createLogger, type Logger } from '../logger.js';
import type { Database } from '../users/database.js';
import { createUserStore } from '../users/user-store.js';
import { isApiPath } from './api-boundary.js';
import { constantResponder } from './constant-responses.js';
import { corsMiddleware } from './cors.js';
import { AppMetrics, observeConstantAnswers, observeRequests } from './metrics.js';
import { metricsRoute } from './routes/metrics-route.js';
import { clientDisconnected, errorMiddleware } from './error-middleware.js';
import { createRootRouter, rootResponses } from './routes/root-router.js';
import { createPlaygroundRouter } from './routes/playground-routes.js';
import { createUsersRouter } from './routes/users-router.js';
import { createV1Router } from './routes/v1-router.js';
import { filesRoutes } from './routes/v1/files-routes.js';
import { FileStore } from '../batches/file-store.js';
import { batchesRoutes } from './routes/v1/batches-routes.js';
import { BatchStore } from '../batches/batch-store.js';
import { BatchRunner } from '../batches/batch-runner.js';
import { LineDispatcher } from '../batches/line-dispatch.js';
import { batchMetrics } from '../batches/batch-metrics.js';
import { InteractiveActivity } from '../batches/interactive-activity.js';
import { LIBRETRANSLATE_PATHS, libreTranslateRoutes } from './routes/libretranslate-routes.js';
import { TEI_PATHS, teiRoutes } from './routes/tei-routes.js';
import { createAdmission } from './admission.js';
import { healthRoutes, type Readiness } from './routes/health-routes.js';
import { routerTree } from './router-tree.js';
import { createRealtimeEndpoint, type RealtimeEndpoint } from './realtime/realtime-endpoint.js';
import { realtimeOperations } from './realtime/realtime-operations.js';
import { buildOpenApiDocument } from './openapi.js';
import type { Json, Operation } from './operation.js';
import { slowClientGuard } from './slow-client-guard.js';
import { modelUsedHeader } from './model-used-header.js';
import { scopedModels } from './scoped-models.js';
import { createRequestValidator, type RequestValidator } from './validation.js';

interface AppDeps {
  db: Kysely<Database>;
  models: ModelRegistry;
  config: Config;
  logger?: Logger;
  /** Shared per-key rate-limit counts across replicas (REDIS_URL); in-process counts without it. */
  redis?: Redis;
  /** Namespace of the rate-limit counts in Redis: deployments sharing one Redis set their own. */
  rateLimitPrefix?: string;
  /** Where the built playground is (default: dist/playground of the package). */
  playgroundDir?: string;
  /** The clock API keys, files and batches expire by (tests move it). */
  now?: () => Date;
  /** Compiles the routes' request schemas (default: a new one); tests share one across their apps. */
  validator?: RequestValidator;
}

/**
 * A Koa app whose request listener answers the small constant routes itself
 * (constant-responses.ts); everything else is Koa's. `callback()` is what `listen()`, the
 * server and the tests' HTTP clients all use, so every caller gets both paths.
 */
export class InferenceApp extends Koa {
  readonly #answerConstant: ReturnType<typeof constantResponder>;
  readonly #access: KeyAccess;
  readonly #readiness: { draining: boolean };
  /** What /openapi.json documents: every route's declaration, in the document's order. */
  readonly operations: readonly Operation[];
  /** Runs the Batch API's lines in the background; the server starts it once listening (tests: when they need it). */
  readonly batches: BatchRunner;
  /** WebSocket upgrades (`/v1/realtime`): the HTTP server's `upgrade` listener, and its close. */
  realtime!: RealtimeEndpoint;

  constructor(
    answerConstant: ReturnType<typeof constantResponder>,
    access: KeyAccess,
    readiness: { draining: boolean },
    operations: readonly Operation[],
    batches: BatchRunner,
  ) {
    super();
    this.batches = batches;
    this.#answerConstant = answerConstant;
    this.#access = access;
    this.#readiness = readiness;
    this.operations = operations;
  }

  get readiness(): Readiness {
    return this.#readiness;
  }

  /** From now on /readyz answers 503, so a load balancer stops sending new requests. */
  beginDraining(): void {
    this.#readiness.draining = true;
  }

  /** Writes what is still buffered (API key usage); call after the server has stopped. */
  async dispose(): Promise<void> {
    await this.batches.stop();
    await this.#access.close();
  }

  override callback(): ReturnType<Koa['callback']> {
    const handle = super.callback();
    return (req, res) => (this.#answerConstant(req, res) ? Promise.resolve() : handle(req, res));
  }
}

/** Builds the Koa application from its dependencies; opens no port and reads no globals. */
export function createApp(deps: AppDeps): InferenceApp {
  const logger = deps.logger ?? createLogger(deps.config.logLevel);
  const { limits } = deps.config;
  const metrics = new AppMetrics(deps.models);
  const access = new KeyAccess(createKeyStore(deps.db, { staticKeys: deps.config.apiKeys, now: deps.now }), {
    redis: deps.redis,
    prefix: deps.rateLimitPrefix,
    logger,
  });
  const validator = deps.validator ?? createRequestValidator();
  const requireKey = requireApiKey(access);
  // What routes see of the registry: the key's model list is checked and its usage counted.
  const modelUsed = modelUsedHeader();
  const models = scopedModels(deps.models, access, metrics.inference, modelUsed.announce);
  // Every inference route passes admission first: that is where interactive requests are seen,
  // so batch lines can make way for them (interactive-activity.ts).
  const activity = new InteractiveActivity();
  const admitted = createAdmission(limits.maxPendingRequests, metrics.admission);
  const seen = activity.middleware();
  const admit: typeof admitted = (task, door) => {
    const admission = admitted(task, door);
    return (ctx, next) => seen(ctx, () => admission(ctx, next));
  };
  const readiness = { draining: false };

  // Every route is declared once (declareRoute): on its router, and as its Operation in
  // `operations`, which every router shares; /openapi.json lists them in this order.
  const operations: Operation[] = [];
  // The document exists once every route is declared; the constant routes read it per request.
  const answers = (path: string) => constants[path]!;
  const rootRouter = createRootRouter(answers, operations);
  const playgroundRouter = createPlaygroundRouter(deps.playgroundDir, operations);
  healthRoutes(rootRouter, { db: deps.db, readiness, models: deps.models, answers });
  metricsRoute(rootRouter, { metrics, requireKey, access });
  const usersRouter = createUsersRouter(createUserStore(deps.db), limits, operations, validator);
  const v1Router = createV1Router({ models, limits, admit, validator }, operations);
  const clock = deps.now;
  const files = new FileStore(deps.db, {
    dir: deps.config.batches.filesDir,
    maxFileBytes: deps.config.batches.maxFileBytes,
    maxTotalBytes: deps.config.batches.maxTotalBytes,
    ...(clock ? { now: () => Math.floor(clock().getTime() / 1000) } : {}),
  });
  filesRoutes(v1Router, { files, access });
  const batches = new BatchStore(deps.db, clock ? { now: () => clock().getTime() } : {});
  // The lines go through this app's own handler; it exists once the app does (below).
  let handle: ReturnType<InferenceApp['callback']> | undefined;
  const dispatcher = new LineDispatcher((req, res) => void (handle ??= app.callback())(req, res));
  const runner = new BatchRunner({
    store: batches,
    files,
    dispatcher,
    access,
    logger,
    observer: batchMetrics(metrics.registry, batches),
    concurrency: deps.config.batches.concurrency,
    activity,
    leaseMs: deps.config.batches.leaseSeconds * 1000,
  });
  batchesRoutes(v1Router, { batches, files, runner, access, validator, maxJsonBytes: limits.maxJsonBytes });
  // Served beside Koa's routers (realtime-endpoint.ts), documented with /v1.
  operations.push(...realtimeOperations(limits.realtime));
  libreTranslateRoutes(rootRouter, { models, access, admit, validator, limits, preferredModels: deps.config.libreTranslateModels, answers });
  teiRoutes(rootRouter, { models, admit, requireKey, validator, limits, servedModel: deps.config.teiModel });
  const libreTranslateSpec = buildOpenApiDocument(
    operations.filter((operation) => operation.tags.includes('libretranslate')),
    limits,
  );
  const constants = rootResponses(buildOpenApiDocument(operations, limits), {
    ...libreTranslateSpec,
    info: { ...(libreTranslateSpec.info as Json), title: 'LibreTranslate API of the local inference server' },
  });

  const app = new InferenceApp(constantResponder(constants, observeConstantAnswers(metrics, logger)), access, readiness, operations, runner);
  // The router's 405 answers and koa-body's errors all pass through the same mapper.
  app.silent = true;
  // Errors after the response has started (a TTS stream failing mid-way) cannot reach the
  // error middleware; routes emit them here so they are still logged.
  app.on('error', (error: unknown, ctx?: Koa.Context) => {
    if (ctx && clientDisconnected(ctx, error)) {
      logger.info('client closed the connection', { requestId: ctx.response.get('X-Request-Id'), path: ctx.path });
      return;
    }
    logger.error('response failed after headers were sent', {
      requestId: ctx?.response.get('X-Request-Id'),
      path: ctx?.path,
      error,
    });
  });

  // Outermost: sees every request's final status and how long its response took.
  app.use(observeRequests(metrics, logger));

  // Before the error handler, so preflights are answered before the key check (cors.ts).
  const cors = corsMiddleware(deps.config.corsOrigins);
  if (cors) app.use(cors);

  // One reading of the path decides both the error format and the key check (api-boundary.ts).
  const isApi = rememberRecentPaths(isApiPath);
  app.use(
    errorMiddleware({
      logger,
      formatFor: (ctx) => (isApi(ctx.path) ? 'json' : TEI_PATHS.has(ctx.path) ? 'tei' : LIBRETRANSLATE_PATHS.has(ctx.path) ? 'message' : 'text'),
    }),
  );

  // First, so a body that stalls or trickles is cut off whichever middleware is reading it.
  app.use(slowClientGuard(limits.timeouts));

  // Before any router, so unknown /v1 paths (404) and wrong methods (405) need a key too, and
  // by the same rule as the error format (api-boundary.ts): no spelling of a path reaches a
  // model without a key. Admission comes after it, so a client without a key holds no slot.
  app.use((ctx, next) => (isApi(ctx.path) ? requireKey(ctx, () => modelUsed.run(ctx, next)) : next()));

  // One router per request, picked by the first path segment (router-tree.ts).
  app.use(
    routerTree(
      [
        { prefix: '/users', router: usersRouter },
        { prefix: '/v1', router: v1Router },
        { prefix: '/playground', router: playgroundRouter },
      ],
      rootRouter,
    ),
  );
  app.realtime = createRealtimeEndpoint({
    access,
    transcriber: (modelId) => models.get(modelId, 'speech-to-text'),
    openAudio: (options) => models.openLiveAudio(options),
    models: deps.models,
    // Read by Koa itself, so the upgrade's path is the one the routers would match (absolute
    // form included, dot segments not resolved) and no spelling reaches one and not the other.
    target: (req) => {
      const ctx = app.createContext(req, new ServerResponse(req));
      return { path: ctx.path ?? '/', query: new URLSearchParams(ctx.querystring) };
    },
    validator,
    limits: limits.realtime,
    logger,
  });
  return app;
}

/**
 * The same answers as `rule`, remembered for recently seen short paths: canonicalising a path
 * (api-boundary.ts) costs a few µs on every request, and a server sees the same few paths
 * over and over. Bounded, and emptied when full, so a client walking random paths only costs
 * the rule itself.
 */
function rememberRecentPaths(rule: (path: string) => boolean, maxPaths = 1_000, maxPathChars = 256): (path: string) => boolean {
  const answers = new Map<string, boolean>();
  return (path) => {
    const known = answers.get(path);
    if (known !== undefined) return known;
    const answer = rule(path);
    if (path.length <= maxPathChars) {
      if (answers.size >= maxPaths) answers.clear();
      answers.set(path, answer);
    }
    return answer;
  };
}
