/**
 * `GET /metrics` in the Prometheus text format. It needs an admin API key (scrape configs take a
 * bearer token): model ids, traffic and load figures are not for every client.
 */
import type { Middleware } from 'koa';
import type { KeyAccess } from '../../auth/key-access.js';
import { AppError } from '../../errors.js';
import type { AppMetrics } from '../metrics.js';
import { declareRoute, textError, type DocumentedRouter } from '../operation.js';

export function metricsRoute(router: DocumentedRouter, deps: { metrics: AppMetrics; requireKey: Middleware; access: KeyAccess }): void {
  declareRoute(
    router,
    {
      method: 'get',
      path: '/metrics',
      tags: ['service'],
      summary: 'Prometheus metrics (requests, latency, admission, model loads, process)',
      secured: true,
      responses: {
        '200': { description: 'Prometheus text exposition format 0.0.4.', content: { 'text/plain': { schema: { type: 'string' } } } },
        '401': textError('Missing or invalid API key.', 'Missing Authorization header: send "Authorization: Bearer <API_KEY>"', ['unauthorized']),
        '403': textError('The key is not an admin key.', 'Metrics need an admin key (API_KEYS, or keys create --admin)', ['unauthorized']),
      },
    },
    deps.requireKey,
    async (ctx) => {
      if (!deps.access.current()?.admin) throw new AppError(403, 'unauthorized', 'Metrics need an admin key (API_KEYS, or keys create --admin)');
      ctx.type = deps.metrics.registry.contentType;
      ctx.body = await deps.metrics.registry.metrics();
    },
  );
}
