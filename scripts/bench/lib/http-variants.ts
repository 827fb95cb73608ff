/**
 * Our GET /users path built up one piece at a time, in the app's order: Koa's floor (one
 * middleware answering from a prepared statement, as in bench:http), then each of our middleware,
 * then the users router, then the store over Kysely instead of the bare statement, then the whole
 * app from createApp. Shared by http-middleware-cost.ts (CPU per request, in process) and
 * http.ts (requests/s and latency under wrk, BENCH_VARIANTS), so both price the same builds.
 */
import type { RequestListener } from 'node:http';
import type { Middleware } from 'koa';

export const LIST_USERS_SQL = 'select * from "users" order by "id"';

/** Cumulative: each variant is the one before it plus one piece. */
export const ALL_VARIANTS = [
  'floor',
  '+observeRequests',
  '+errorMiddleware',
  '+slowClientGuard',
  '+keyBoundary',
  '+usersRouter',
  '+kyselyStore',
  'app',
] as const;
export type Variant = (typeof ALL_VARIANTS)[number];

export function isVariant(name: string): name is Variant {
  return (ALL_VARIANTS as readonly string[]).includes(name);
}

/** The request listener of `variant`, reading the users of the SQLite file at `databasePath`. */
export async function buildVariant(variant: Variant, databasePath: string): Promise<RequestListener> {
  const { loadConfig } = await import('../../../src/config/load-config.js');
  const { createLogger } = await import('../../../src/logger.js');
  const config = loadConfig({ DATABASE_URL: `sqlite:${databasePath}`, API_KEYS: 'bench-key-0123456789abcdef', LOG_LEVEL: 'silent', PORT: '0' });
  const logger = createLogger('silent');
  if (variant === 'app') {
    const { createApp } = await import('../../../src/http/create-app.js');
    const { ENGINES } = await import('../../../src/inference/engines.js');
    const { ModelRegistry } = await import('../../../src/inference/model-registry.js');
    const { openDatabase } = await import('../../../src/users/open-database.js');
    const models = new ModelRegistry({ manifest: { models: [] }, modelsDir: config.modelsDir, engines: ENGINES });
    return createApp({ db: await openDatabase(databasePath), models, config, logger }).callback();
  }
  const { default: Koa } = await import('koa');
  const { default: SQLite } = await import('better-sqlite3');
  const sqlite = new SQLite(databasePath);
  const listUsers = sqlite.prepare(LIST_USERS_SQL);
  const level = ALL_VARIANTS.indexOf(variant);
  const koa = new Koa();
  koa.silent = true;
  if (level >= 1) {
    const { AppMetrics, observeRequests } = await import('../../../src/http/metrics.js');
    const models = { residents: () => [], onLoad() {}, onUnload() {} };
    koa.use(observeRequests(new AppMetrics(models as never), logger));
  }
  if (level >= 2) {
    const { errorMiddleware } = await import('../../../src/http/error-middleware.js');
    koa.use(errorMiddleware({ logger, formatFor: () => 'text' }));
  }
  if (level >= 3) {
    const { slowClientGuard } = await import('../../../src/http/slow-client-guard.js');
    koa.use(slowClientGuard(config.limits.timeouts));
  }
  if (level >= 4) {
    // As create-app.ts: the /v1 rule, remembered per path, in front of the routers.
    const { isApiPath } = await import('../../../src/http/api-boundary.js');
    const known = new Map<string, boolean>();
    const isApi = (path: string) => known.get(path) ?? (known.set(path, isApiPath(path)), known.get(path)!);
    koa.use((ctx, next) => (isApi(ctx.path) ? Promise.reject(new Error('no /v1 here')) : next()));
  }
  if (level >= 5) {
    const { createUsersRouter } = await import('../../../src/http/routes/users-router.js');
    const { routerTree } = await import('../../../src/http/router-tree.js');
    const { default: Router } = await import('@koa/router');
    let store = { list: async () => listUsers.all() };
    if (level >= 6) {
      const { openDatabase } = await import('../../../src/users/open-database.js');
      const { createUserStore } = await import('../../../src/users/user-store.js');
      store = createUserStore(await openDatabase(databasePath));
    }
    koa.use(routerTree([{ prefix: '/users', router: createUsersRouter(store as never, config.limits) }], new Router()));
  } else {
    const answer: Middleware = (ctx) => {
      if (ctx.method === 'GET' && ctx.path === '/users') ctx.body = listUsers.all();
    };
    koa.use(answer);
  }
  return koa.callback();
}
