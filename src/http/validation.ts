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
  /** Over this many characters → 400 (or 413 with `tooLargeStatus`). */
  maxLength?: number;
  tooLargeStatus?: 400 | 413;
  /** Whitespace-only counts as empty. Defaults to true. */
  nonEmpty?: boolean;
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

function checkString(value: unknown, field: string, rule: StringRule): string {
  if (typeof value !== 'string') throw new ValidationError(`"${field}" must be a string`);
  if ((rule.nonEmpty ?? true) && value.trim() === '') throw new ValidationError(`"${field}" must not be empty`);
  if (rule.maxLength !== undefined && value.length > rule.maxLength) {
    const message = `"${field}" is ${value.length} characters; the limit is ${rule.maxLength}`;
    throw rule.tooLargeStatus === 413 ? new PayloadTooLargeError(message) : new ValidationError(message);
  }
  return value;
}
