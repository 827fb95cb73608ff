/**
 * Probes for process managers and load balancers. `/health` (`{"message":"OK"}`) and `/healthz` (`ok`) (liveness) are
 * constant answers (rootResponses in root-router.ts; the request listener serves them before Koa: constant-responses.ts): if the
 * event loop answers, the process is alive. `/readyz` says whether to send traffic: the database
 * answers and every migration has run, the models of PRELOAD_MODELS are loaded, and the server
 * is not draining after SIGTERM.
 */
import { Migrator, type Kysely } from 'kysely';
import type { Database } from '../../users/database.js';
import { migrationProvider } from '../../users/migrations.js';
import { declareRoute, type DocumentedRouter } from '../operation.js';
import { serveConstant, type ConstantAnswers } from './root-router.js';

export interface Readiness {
  /** Set once shutdown begins: the load balancer should stop sending new requests. */
  readonly draining: boolean;
}

const text = (description: string) => ({ description, content: { 'text/plain': { schema: { type: 'string' } } } });

export function healthRoutes(
  router: DocumentedRouter,
  deps: { db: Kysely<Database>; readiness: Readiness; models?: { preloadProblem(): string | undefined }; answers: ConstantAnswers },
): void {
  declareRoute(
    router,
    {
      method: 'get',
      path: '/health',
      tags: ['service'],
      summary: 'Liveness: `{"message":"OK"}`, as speaches (an OpenAI-compatible speech server) answers',
      responses: {
        '200': {
          description: 'Alive.',
          content: { 'application/json': { schema: { type: 'object', properties: { message: { type: 'string', const: 'OK' } }, required: ['message'] } } },
        },
      },
    },
    serveConstant(deps.answers, '/health'),
  );
  declareRoute(
    router,
    { method: 'get', path: '/healthz', tags: ['service'], summary: 'Liveness probe', responses: { '200': text('ok') } },
    serveConstant(deps.answers, '/healthz'),
  );
  const migrator = new Migrator({ db: deps.db, provider: migrationProvider });
  declareRoute(
    router,
    {
      method: 'get',
      path: '/readyz',
      tags: ['service'],
      summary: 'Readiness probe: database reachable, migrations applied, PRELOAD_MODELS loaded, not draining',
      responses: { '200': text('ready'), '503': { ...text('What is not ready (e.g. "draining: the server is shutting down").'), 'x-error-codes': [] } },
    },
    async (ctx) => {
      const problem = deps.readiness.draining ? 'draining: the server is shutting down' : (deps.models?.preloadProblem() ?? (await databaseProblem(migrator)));
      ctx.type = 'text/plain; charset=utf-8';
      ctx.status = problem ? 503 : 200;
      ctx.body = problem ?? 'ready';
    },
  );
}

async function databaseProblem(migrator: Migrator): Promise<string | undefined> {
  try {
    const pending = (await migrator.getMigrations()).filter((migration) => migration.executedAt === undefined);
    return pending.length > 0 ? `database migrations not applied: ${pending.map((m) => m.name).join(', ')}` : undefined;
  } catch {
    return 'database unreachable';
  }
}
