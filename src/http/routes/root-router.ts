import type { Middleware } from 'koa';
import type { ConstantResponse } from '../constant-responses.js';
import { renderDocsPage } from '../docs-page.js';
import { declareRoute, documentedRouter, jsonResponse, type DocumentedRouter, type Json, type Operation } from '../operation.js';

const GREETING = 'Hello from the local inference server. See /docs for the API.';

/**
 * What `/`, `/openapi.json`, `/docs` and the liveness probes (health-routes.ts) answer: built
 * once, from the document of this app's routes.
 */
export function rootResponses(document: Json, libreTranslateSpec: Json): Record<string, ConstantResponse> {
  return {
    '/spec': { contentType: 'application/json; charset=utf-8', body: JSON.stringify(libreTranslateSpec) },
    '/': { contentType: 'text/plain; charset=utf-8', body: GREETING },
    // speaches' answer, which its clients and tests read as JSON; status-only probes see a 200 either way.
    '/health': { contentType: 'application/json; charset=utf-8', body: '{"message":"OK"}' },
    '/healthz': { contentType: 'text/plain; charset=utf-8', body: 'ok' },
    '/openapi.json': { contentType: 'application/json; charset=utf-8', body: JSON.stringify(document) },
    '/docs': { contentType: 'text/html; charset=utf-8', body: renderDocsPage(document) },
  };
}

/**
 * The constant answer of a path. Looked up per request: the document is built from every route's
 * declaration, so it exists only once all routes, these included, are declared.
 */
export type ConstantAnswers = (path: string) => ConstantResponse;

/** Serves the constant answer of the route's path (the request listener answers the small ones first: constant-responses.ts). */
export function serveConstant(answers: ConstantAnswers, path: string): Middleware {
  return (ctx) => {
    const { contentType, body } = answers(path);
    ctx.type = contentType;
    ctx.body = body;
  };
}

const text = (description: string) => ({ description, content: { 'text/plain': { schema: { type: 'string' } } } });

/** The router of the paths no prefixed router owns, with `/`, `/openapi.json` and `/docs` declared. */
export function createRootRouter(answers: ConstantAnswers, operations: Operation[] = []): DocumentedRouter {
  const router = documentedRouter({ sensitive: true }, operations);
  declareRoute(
    router,
    { method: 'get', path: '/', tags: ['service'], summary: 'Greeting (liveness check)', responses: { '200': text('A short greeting.') } },
    serveConstant(answers, '/'),
  );
  declareRoute(
    router,
    {
      method: 'get',
      path: '/openapi.json',
      tags: ['service'],
      summary: 'This OpenAPI document',
      responses: { '200': jsonResponse('OpenAPI 3.1 document.', { type: 'object' }) },
    },
    serveConstant(answers, '/openapi.json'),
  );
  declareRoute(
    router,
    {
      method: 'get',
      path: '/docs',
      tags: ['service'],
      summary: 'Human-readable API documentation',
      responses: {
        '200': { description: 'A self-contained HTML page generated from this document.', content: { 'text/html': { schema: { type: 'string' } } } },
      },
    },
    serveConstant(answers, '/docs'),
  );
  return router;
}
