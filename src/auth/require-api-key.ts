import type { Middleware } from 'koa';
import { BEARER_CHALLENGE, UnauthorizedError } from '../errors.js';
import type { KeyVerifier } from './key-store.js';

/**
 * Bearer-key check for the /v1 router. Mounted on the router rather than exempting paths, so
 * every /v1 route (including unknown ones) needs a key.
 */
export function requireApiKey(keys: KeyVerifier): Middleware {
  return async (ctx, next) => {
    const header = ctx.get('Authorization');
    if (header === '') {
      throw new UnauthorizedError('Missing Authorization header: send "Authorization: Bearer <API_KEY>"');
    }
    // The scheme name is case-insensitive (RFC 9110 §11.1).
    const match = /^Bearer +(\S+) *$/i.exec(header);
    if (!match?.[1]) {
      throw new UnauthorizedError('Authorization header must be "Bearer <API_KEY>"', `${BEARER_CHALLENGE}, error="invalid_request"`);
    }
    // `error="invalid_token"` only when a token was actually presented (RFC 6750 §3.1).
    if (!(await keys.verify(match[1]))) {
      throw new UnauthorizedError('Invalid or revoked API key', `${BEARER_CHALLENGE}, error="invalid_token"`);
    }
    await next();
  };
}
