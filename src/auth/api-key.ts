/**
 * API key material. A key is `lis_` plus 32 random bytes in base64url (256 bits), shown once
 * when created; only its SHA-256 is stored. A fast unsalted hash is enough here because the
 * input is uniformly random: there is no dictionary to attack, unlike with passwords.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const API_KEY_PREFIX = 'lis_';
/** Characters of a key kept in the clear so a person can tell keys apart in `keys list`. */
const DISPLAY_PREFIX_CHARS = API_KEY_PREFIX.length + 8;

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** The token of an `Authorization: Bearer <token>` header (the scheme in any case, RFC 9110 §11.1); undefined otherwise. */
export function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer +(\S+) *$/i.exec(header ?? '')?.[1];
}

export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_CHARS);
}

/**
 * Constant-time equality of two SHA-256 digests. Comparing digests rather than the keys keeps
 * the lengths equal, so neither the content nor the length of a secret leaks through timing.
 */
export function digestsEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
