import type Router from '@koa/router';
import type { V1RouteDeps } from '../v1-router.js';

export function modelRoutes(router: Router, { models }: V1RouteDeps): void {
  router.get('/models', async (ctx) => {
    ctx.body = { object: 'list', data: await models.list() };
  });
}
