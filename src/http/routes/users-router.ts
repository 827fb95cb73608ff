import Router from '@koa/router';
import type { Limits } from '../../config/load-config.js';
import type { UserStore } from '../../users/user-store.js';

// TODO(foundation helper): POST/PUT/DELETE with validation.
export function createUsersRouter(users: UserStore, _limits: Limits): Router {
  const router = new Router({ prefix: '/users' });
  router.get('/', async (ctx) => {
    ctx.body = await users.list();
  });
  return router;
}
