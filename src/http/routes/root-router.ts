import Router from '@koa/router';
import type { Limits } from '../../config/load-config.js';
import type { ConstantResponse } from '../constant-responses.js';
import { renderDocsPage } from '../docs-page.js';
import { buildOpenApiDocument } from '../openapi.js';
import { jsonResponse, type Operation } from '../operation.js';

export const GREETING = 'Hello from the local inference server. See /docs for the API.';

/**
 * What `/`, `/openapi.json`, `/docs` and the liveness probes (health-routes.ts) answer: built
 * once, from the limits this app was created with.
 */
export function rootResponses(limits: Limits): Record<string, ConstantResponse> {
  const document = buildOpenApiDocument(limits);
  return {
    '/': { contentType: 'text/plain; charset=utf-8', body: GREETING },
    '/health': { contentType: 'text/plain; charset=utf-8', body: 'OK' },
    '/healthz': { contentType: 'text/plain; charset=utf-8', body: 'ok' },
    '/openapi.json': { contentType: 'application/json; charset=utf-8', body: JSON.stringify(document) },
    '/docs': { contentType: 'text/html; charset=utf-8', body: renderDocsPage(document) },
  };
}

/** Serves `responses` (the request listener answers the small ones first: constant-responses.ts). */
export function createRootRouter(responses: Readonly<Record<string, ConstantResponse>>): Router {
  const router = new Router({ sensitive: true });
  for (const [path, { contentType, body }] of Object.entries(responses)) {
    router.get(path, (ctx) => {
      ctx.type = contentType;
      ctx.body = body;
    });
  }
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
