import type { Middleware } from 'koa';
import { UnauthorizedError } from '../errors.js';
import type { KeyVerifier } from './key-store.js';

/** RFC 6750 challenge; `error="invalid_token"` only when a token was actually presented. */
const CHALLENGE = 'Bearer realm="v1"';

/**
 * Bearer-key check for the /v1 router. Mounted on the router rather than exempting paths, so
 * every /v1 route (including unknown ones) needs a key.
 */
export function requireApiKey(keys: KeyVerifier): Middleware {
  return async (ctx, next) => {
    const header = ctx.get('Authorization');
    if (header === '') {
      ctx.set('WWW-Authenticate', CHALLENGE);
      throw new UnauthorizedError('Missing Authorization header: send "Authorization: Bearer <API_KEY>"');
    }
    // The scheme name is case-insensitive (RFC 9110 §11.1).
    const match = /^Bearer +(\S+) *$/i.exec(header);
    if (!match?.[1]) {
      ctx.set('WWW-Authenticate', `${CHALLENGE}, error="invalid_request"`);
      throw new UnauthorizedError('Authorization header must be "Bearer <API_KEY>"');
    }
    if (!(await keys.verify(match[1]))) {
      ctx.set('WWW-Authenticate', `${CHALLENGE}, error="invalid_token"`);
      throw new UnauthorizedError('Invalid or revoked API key');
    }
    await next();
  };
}
