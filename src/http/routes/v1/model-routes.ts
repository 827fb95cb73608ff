import type Router from '@koa/router';
import type { V1Deps } from '../v1-router.js';

export function modelRoutes(router: Router, { models }: V1Deps): void {
  router.get('/models', async (ctx) => {
    ctx.body = { object: 'list', data: await models.list() };
  });
}
