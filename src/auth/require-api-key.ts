import type { Middleware } from 'koa';
import { BEARER_CHALLENGE, UnauthorizedError } from '../errors.js';
import { bearerToken } from './api-key.js';
import type { KeyAccess } from './key-access.js';
import { trustedCaller } from './trusted-caller.js';

/**
 * Bearer-key check for the /v1 router. Mounted on the router rather than exempting paths, so
 * every /v1 route (including unknown ones) needs a key.
 */
export function requireApiKey(access: KeyAccess): Middleware {
  return async (ctx, next) => {
    const trusted = trustedCaller(ctx.req);
    if (trusted) {
      // A batch line: the owner's key was checked when the batch was created and its policy
      // read again (revocation included) before the line was sent; its rate limit still counts.
      await access.charge(trusted.policy);
      return access.runAs(trusted.policy, trusted.requester, next);
    }
    const header = ctx.get('Authorization');
    if (header === '') {
      throw new UnauthorizedError('Missing Authorization header: send "Authorization: Bearer <API_KEY>"');
    }
    const key = bearerToken(header);
    if (!key) {
      throw new UnauthorizedError('Authorization header must be "Bearer <API_KEY>"', `${BEARER_CHALLENGE}, error="invalid_request"`);
    }
    // `error="invalid_token"` only when a token was actually presented (RFC 6750 §3.1).
    const policy = await access.authorize(key);
    if (!policy) throw new UnauthorizedError('Invalid, expired or revoked API key', `${BEARER_CHALLENGE}, error="invalid_token"`);
    // The rest of the request runs as this key: its model list and usage (key-access.ts).
    await access.run(policy, key, next);
  };
}
