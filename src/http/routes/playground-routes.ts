/**
 * The web playground at `/playground`: a page that calls this server's /v1 API through the typed
 * client (src/playground/, bundled into dist/playground/ by `npm run build`). Same origin, no key
 * for the page itself (the page sends the key the person types), nothing fetched from elsewhere.
 *
 * The files are read on first request and kept: a server started before the build answers a
 * 404 that names the command (a client error like any missing page: the server itself is fine, and
 * the answer names no file path), and starts serving once the bundle exists.
 */
import type { RouterContext } from '@koa/router';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { declareRoute, documentedRouter, type DocumentedRouter, type Operation } from '../operation.js';

/** What the build writes (scripts/build-playground.ts); nothing else under the folder is served. */
const FILES: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'playground.js': 'text/javascript; charset=utf-8',
  'playground.css': 'text/css; charset=utf-8',
};

/**
 * Only this origin, and nothing inline: the page's script and style are files, audio plays from
 * blob: URLs (MediaSource and downloads), live captions open a same-origin WebSocket.
 */
const PLAYGROUND_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "media-src 'self' blob: mediastream:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': PLAYGROUND_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
  // The microphone is for this page only (recording and live captions); nothing else is asked for.
  'Permissions-Policy': 'microphone=(self), camera=(), geolocation=()',
};

/** dist/playground under the package root (found from this file, whether it runs from src/ or dist/src/). */
function defaultPlaygroundDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, 'dist', 'playground');
}

export function createPlaygroundRouter(dir: string = defaultPlaygroundDir(), operations: Operation[] = []): DocumentedRouter {
  const router = documentedRouter({ sensitive: true, strict: true }, operations);
  const cache = new Map<string, Buffer>();

  async function serve(ctx: RouterContext, name: string): Promise<void> {
    const type = FILES[name];
    if (!type) return; // 404 from the router
    let body = cache.get(name);
    if (!body) {
      try {
        body = await readFile(join(dir, name));
      } catch {
        ctx.status = 404;
        ctx.type = 'text/plain; charset=utf-8';
        ctx.body = 'The playground is not built: run `npm run build` (or `npm run build:playground`), then reload.';
        return;
      }
      cache.set(name, body);
    }
    ctx.set(SECURITY_HEADERS);
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = type;
    ctx.body = body;
  }

  declareRoute(
    router,
    {
      method: 'get',
      path: '/playground',
      tags: ['service'],
      summary: 'Web playground: try every task from a browser',
      description: 'A same-origin page (no CDN) that calls /v1 with the API key typed into it. Built by `npm run build`; 404 naming that command until it is.',
      responses: {
        '200': { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } },
        '404': {
          description: 'The bundle is not built (the message names the command).',
          content: { 'text/plain': { schema: { type: 'string' } } },
          'x-error-codes': [],
        },
      },
    },
    (ctx) => serve(ctx, 'index.html'),
  );
  // The same page's other spelling: a redirect, documented as /playground.
  router.get('/playground/', (ctx) => ctx.redirect('/playground'));
  declareRoute(
    router,
    {
      method: 'get',
      path: '/playground/:file',
      tags: ['service'],
      summary: "The playground's script and style sheet",
      parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string', enum: Object.keys(FILES).filter((name) => name !== 'index.html') } }],
      responses: {
        '200': { description: 'The file.', content: { 'text/javascript': { schema: { type: 'string' } }, 'text/css': { schema: { type: 'string' } } } },
        '404': { description: 'No such file, or the bundle is not built.', content: { 'text/plain': { schema: { type: 'string' } } }, 'x-error-codes': [] },
      },
    },
    (ctx) => serve(ctx, ctx.params.file!),
  );
  return router;
}
