import Router from '@koa/router';
import type { Limits } from '../../config/load-config.js';
import { renderDocsPage } from '../docs-page.js';
import { buildOpenApiDocument } from '../openapi.js';
import { jsonResponse, type Operation } from '../operation.js';

export const GREETING = 'Hello from the local inference server. See /docs for the API.';

/** `/`, and the API description built once, from the limits this app was created with. */
export function createRootRouter(limits: Limits): Router {
  const document = Object.freeze(buildOpenApiDocument(limits));
  const docsPage = renderDocsPage(document);
  const router = new Router({ sensitive: true });
  router.get('/', (ctx) => {
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = GREETING;
  });
  router.get('/openapi.json', (ctx) => {
    ctx.body = document;
  });
  router.get('/docs', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = docsPage;
  });
  return router;
}

const text = (description: string) => ({ description, content: { 'text/plain': { schema: { type: 'string' } } } });

export const rootOperations = (): Operation[] => [
  { method: 'get', path: '/', tags: ['service'], summary: 'Greeting (liveness check)', responses: { '200': text('A short greeting.') } },
  { method: 'get', path: '/openapi.json', tags: ['service'], summary: 'This OpenAPI document', responses: { '200': jsonResponse('OpenAPI 3.1 document.', { type: 'object' }) } },
  {
    method: 'get',
    path: '/docs',
    tags: ['service'],
    summary: 'Human-readable API documentation',
    responses: { '200': { description: 'A self-contained HTML page generated from this document.', content: { 'text/html': { schema: { type: 'string' } } } } },
  },
];
