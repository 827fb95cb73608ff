import type { Middleware } from 'koa';
import { UnauthorizedError } from '../errors.js';
import type { KeyVerifier } from './key-store.js';

export function requireApiKey(keys: KeyVerifier): Middleware {
  return async (ctx, next) => {
    const match = /^Bearer ([^\s]+)$/.exec(ctx.get('Authorization'));
    if (!match?.[1] || !(await keys.verify(match[1]))) throw new UnauthorizedError();
    await next();
  };
}
