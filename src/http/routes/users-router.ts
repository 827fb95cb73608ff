import Router from '@koa/router';
import type { Limits } from '../../config/load-config.js';
import { ValidationError } from '../../errors.js';
import type { UserInput, UserStore } from '../../users/user-store.js';
import { jsonBody } from '../body-parsers.js';
import { requireObject, requireString } from '../validation.js';

export const MAX_NAME_CHARS = 200;
/** RFC 5321 caps a forward path at 256 octets including the angle brackets. */
export const MAX_EMAIL_CHARS = 254;
/**
 * Deliberately loose: one "@", no whitespace, a dotted domain. Stricter checks reject real
 * addresses; whether a mailbox exists can only be learned by mailing it.
 */
const EMAIL = /^[^\s@]{1,64}@[^\s@.]+(\.[^\s@.]+)+$/;

/** Area A: user records. Open (no API key), plain-text errors, see SPEC "Area A". */
export function createUsersRouter(users: UserStore, limits: Limits): Router {
  const router = new Router({ prefix: '/users' });
  const json = jsonBody(limits.maxJsonBytes);

  router.get('/', async (ctx) => {
    ctx.body = await users.list();
  });

  router.post('/', json, async (ctx) => {
    const user = await users.create(parseUserInput(ctx.request.body));
    ctx.status = 201;
    ctx.set('Location', `/users/${user.id}`);
    ctx.body = user;
  });

  router.get('/:id', async (ctx) => {
    ctx.body = await users.get(parseUserId(ctx.params.id));
  });

  router.put('/:id', json, async (ctx) => {
    // The id is checked before the body so a bad path is reported even with a bad body.
    const id = parseUserId(ctx.params.id);
    ctx.body = await users.update(id, parseUserInput(ctx.request.body));
  });

  router.delete('/:id', async (ctx) => {
    await users.remove(parseUserId(ctx.params.id));
    ctx.status = 204;
  });

  return router;
}

export function parseUserInput(body: unknown): UserInput {
  const object = requireObject(body);
  const name = requireString(object, 'name', { maxLength: MAX_NAME_CHARS });
  const email = requireString(object, 'email', { maxLength: MAX_EMAIL_CHARS });
  if (!EMAIL.test(email)) throw new ValidationError('"email" must be an email address such as ann@example.org');
  return { name, email };
}

/** Ids are SQLite rowids: positive integers that fit a JS number exactly. */
export function parseUserId(raw: string | undefined): number {
  const id = Number(raw);
  if (!raw || !/^[1-9]\d*$/.test(raw) || !Number.isSafeInteger(id)) {
    throw new ValidationError(`user id must be a positive integer, got "${raw ?? ''}"`);
  }
  return id;
}
