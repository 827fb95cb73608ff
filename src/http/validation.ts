/**
 * Small guards for request bodies. Each returns a typed value or throws a ValidationError
 * that names the field, so clients learn exactly what to fix.
 */
import { PayloadTooLargeError, ValidationError } from '../errors.js';

export type JsonObject = Record<string, unknown>;

export function requireObject(body: unknown): JsonObject {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ValidationError('Request body must be a JSON object');
  }
  return body as JsonObject;
}

export interface StringRule {
  /** Over this many characters (Unicode code points, see characterCount) → 400 (or 413 with `tooLargeStatus`). */
  maxLength?: number;
  tooLargeStatus?: 400 | 413;
  /** Whitespace-only counts as empty. Defaults to true. */
  nonEmpty?: boolean;
  /**
   * Refuse every control character (C0, DEL, C1), tabs and line breaks included: for one-line
   * fields such as names and addresses. Free text (translation, speech input) keeps its line breaks.
   */
  noControlCharacters?: boolean;
}

export function requireString(body: JsonObject, field: string, rule: StringRule = {}): string {
  const value = body[field];
  if (value === undefined || value === null) throw new ValidationError(`"${field}" is required`);
  return checkString(value, field, rule);
}

export function optionalString(body: JsonObject, field: string, rule: StringRule = {}): string | undefined {
  const value = body[field];
  return value === undefined || value === null ? undefined : checkString(value, field, rule);
}

export function optionalNumber(body: JsonObject, field: string, range: { min: number; max: number }): number | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number) || number < range.min || number > range.max) {
    throw new ValidationError(`"${field}" must be a number between ${range.min} and ${range.max}`);
  }
  return number;
}

export function optionalEnum<T extends string>(body: JsonObject, field: string, allowed: readonly T[]): T | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new ValidationError(`"${field}" must be one of: ${allowed.join(', ')}`);
  }
  return value as T;
}

export function optionalStringArray(
  body: JsonObject,
  field: string,
  limits: { maxItems: number; maxLength: number },
): string[] | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.length === 0 || value.length > limits.maxItems) {
    throw new ValidationError(`"${field}" must be an array of 1 to ${limits.maxItems} strings`);
  }
  return value.map((item, index) => checkString(item, `${field}[${index}]`, { maxLength: limits.maxLength }));
}

/** A UTF-16 unit that is half of no pair. JSON can carry one ("\ud800"); UTF-8 cannot store it. */
const LONE_SURROGATE = /\p{Surrogate}/u;
const CONTROL_CHARACTER = /\p{Cc}/u;

function checkString(value: unknown, field: string, rule: StringRule): string {
  if (typeof value !== 'string') throw new ValidationError(`"${field}" must be a string`);
  // Stored or encoded, a lone surrogate becomes U+FFFD: what was sent would not be what is kept.
  const surrogate = LONE_SURROGATE.exec(value);
  if (surrogate) {
    throw new ValidationError(`"${field}" is not valid Unicode: it contains the unpaired surrogate ${codePointName(surrogate[0])}`);
  }
  if ((rule.nonEmpty ?? true) && value.trim() === '') throw new ValidationError(`"${field}" must not be empty`);
  // `length` never undercounts code points, so only strings over the limit by it need counting.
  if (rule.maxLength !== undefined && value.length > rule.maxLength) {
    const characters = characterCount(value);
    if (characters > rule.maxLength) {
      const message = `"${field}" is ${characters} characters; the limit is ${rule.maxLength}`;
      throw rule.tooLargeStatus === 413 ? new PayloadTooLargeError(message) : new ValidationError(message);
    }
  }
  const control = rule.noControlCharacters ? CONTROL_CHARACTER.exec(value) : null;
  if (control) throw new ValidationError(`"${field}" must not contain control characters (found ${codePointName(control[0])})`);
  return value;
}

/**
 * Characters as limits count them: Unicode code points, so "é" and "😀" are one each, where
 * `length` counts UTF-16 units and an emoji as two. (A flag or a family emoji is several code points.)
 */
export function characterCount(text: string): number {
  let count = 0;
  for (const _codePoint of text) count++;
  return count;
}

/** "U+0000": how messages name a character that cannot be shown as itself. */
function codePointName(character: string): string {
  return `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}
