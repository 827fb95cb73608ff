import Router from '@koa/router';
import { openApiDocument } from '../openapi.js';
import { docsPage } from '../docs-page.js';

export const GREETING = 'Hello from the local inference server. See /docs for the API.';

export function createRootRouter(): Router {
  const router = new Router({ sensitive: true });
  router.get('/', (ctx) => {
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = GREETING;
  });
  router.get('/openapi.json', (ctx) => {
    ctx.body = openApiDocument;
  });
  router.get('/docs', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = docsPage;
  });
  return router;
}
