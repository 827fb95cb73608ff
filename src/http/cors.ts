/**
 * CORS for browser pages on other origins (off unless CORS_ORIGINS is set), by @koa/cors.
 * Mounted first, so a preflight (OPTIONS with Access-Control-Request-Method) is answered 204
 * before the key check, which a browser cannot pass: preflights carry no Authorization header.
 * Error responses keep these headers too (error-middleware.ts), or a page could not read why a
 * call failed.
 */
import cors from '@koa/cors';
import type { Middleware } from 'koa';

/** What a page may read of our responses besides the CORS-safelisted headers. */
const EXPOSED_HEADERS = ['X-Request-Id', 'Retry-After', 'WWW-Authenticate', 'Location', 'Content-Disposition', 'X-Sample-Rate', 'X-Model'];
/** Browsers cache a preflight answer at most this long (Chromium caps it at 2 h). */
const PREFLIGHT_MAX_AGE_SECONDS = 7_200;

export function corsMiddleware(origins: readonly string[] | '*'): Middleware | undefined {
  if (origins !== '*' && origins.length === 0) return undefined;
  const allowed = new Set(origins === '*' ? [] : origins);
  return cors({
    // An origin that is not allowed gets no CORS headers at all, so the browser refuses the read.
    origin: (ctx) => (origins === '*' ? '*' : allowed.has(ctx.get('Origin')) ? ctx.get('Origin') : ''),
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
    exposeHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
    // Keys travel in the Authorization header, never in cookies.
    credentials: false,
  });
}

/** Response headers the error middleware keeps when it replaces a failed response's headers. */
export function isCorsHeader(name: string): boolean {
  return name.startsWith('access-control-') || name === 'vary';
}
