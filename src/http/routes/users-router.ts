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
 * Deliberately loose beyond the characters: a local part of RFC 5322 atext and dots (dots
 * anywhere: real addresses like "taro..y@docomo.ne.jp" exist; quoted local parts are not
 * supported), one "@", and a dotted domain of letters, digits and hyphens. Non-ASCII is allowed
 * on both sides (RFC 6531, IDN: zoë@exämple.org). Refused: spaces, control characters (checked
 * by the string rule), and what only a quoted or bracketed address may hold, e.g. <>()[],;:\"@.
 * Whether a mailbox exists can only be learned by mailing it.
 */
const EMAIL =
  /^[A-Za-z0-9!#$%&'*+\-\/=?^_`{|}~.\u{80}-\u{10FFFF}]{1,64}@[A-Za-z0-9\-\u{80}-\u{10FFFF}]+(?:\.[A-Za-z0-9\-\u{80}-\u{10FFFF}]+)+$/u;
/** Non-ASCII, so inside the ranges above, yet never part of an address: NBSP, U+2028, U+3000... */
const UNICODE_SPACE = /\s/u;

/** Area A: user records. Open (no API key), plain-text errors, see SPEC "Area A". */
export function createUsersRouter(users: UserStore, limits: Limits): Router {
  const router = new Router({ prefix: '/users', sensitive: true });
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
  const name = requireString(object, 'name', { maxLength: MAX_NAME_CHARS, noControlCharacters: true });
  const email = requireString(object, 'email', { maxLength: MAX_EMAIL_CHARS, noControlCharacters: true });
  if (!EMAIL.test(email) || UNICODE_SPACE.test(email)) {
    throw new ValidationError('"email" must be an email address such as ann@example.org');
  }
  return { name, email };
}

/** Ids are SQLite rowids: positive integers that fit a JS number exactly. */
export function parseUserId(raw: string | undefined): number {
  const id = Number(raw);
  if (!raw || !/^[1-9]\d*$/.test(raw) || !Number.isSafeInteger(id)) {
    throw new ValidationError(`user id must be a positive integer, got ${quoteForMessage(raw ?? '')}`);
  }
  return id;
}

/** Echoes client input short and escaped, so an 8 KB path or terminal escapes do not come back as sent. */
function quoteForMessage(raw: string): string {
  const characters = Array.from(raw);
  return JSON.stringify(characters.length > 40 ? `${characters.slice(0, 40).join('')}…` : raw);
}
