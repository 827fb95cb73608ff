/**
 * TypeBox builders for request fields. Besides standard JSON Schema they declare the rules
 * JSON Schema cannot say (well-formed Unicode, not blank, no control characters, 413 for an
 * over-long field) as `x-` keywords: validation.ts teaches them to Ajv, and /openapi.json shows
 * them next to the limits.
 */
import { Type, type SchemaOptions, type TString, type TUnsafe } from '@sinclair/typebox';

export const KEYWORDS = Object.freeze({
  /** No lone UTF-16 surrogate: what is stored or encoded is what was sent. */
  wellFormed: 'x-well-formed',
  /** Whitespace-only counts as empty. */
  notBlank: 'x-not-blank',
  /** No C0, DEL or C1 character, tabs and line breaks included: for one-line fields. */
  noControlCharacters: 'x-no-control-characters',
  /** 413 instead of 400 when the field is over maxLength (it is the request's payload). */
  tooLargeStatus: 'x-too-large-status',
  /** How a value that fails `pattern` is described: `"field" <message>`. */
  invalidMessage: 'x-invalid-message',
  /** Appended to `"field" is required`, e.g. where else the field may be sent. */
  missingHint: 'x-missing-hint',
});

interface TextRule extends SchemaOptions {
  /** In characters (Unicode code points), as JSON Schema counts them. */
  maxLength?: number;
  /** Whitespace-only is refused. Defaults to true. */
  notBlank?: boolean;
  oneLine?: boolean;
  tooLargeStatus?: 413;
  pattern?: string;
  invalidMessage?: string;
  missingHint?: string;
}

/** A string field with our rules. */
export function Text(description: string, rule: TextRule = {}): TString {
  const { notBlank = true, oneLine = false, tooLargeStatus, invalidMessage, missingHint, ...options } = rule;
  return Type.String({
    description,
    ...options,
    ...(notBlank ? { minLength: 1 } : {}),
    [KEYWORDS.wellFormed]: true,
    ...(notBlank ? { [KEYWORDS.notBlank]: true } : {}),
    ...(oneLine ? { [KEYWORDS.noControlCharacters]: true } : {}),
    ...(tooLargeStatus ? { [KEYWORDS.tooLargeStatus]: tooLargeStatus } : {}),
    ...(invalidMessage ? { [KEYWORDS.invalidMessage]: invalidMessage } : {}),
    ...(missingHint ? { [KEYWORDS.missingHint]: missingHint } : {}),
  });
}

/** One of a few strings, as a plain JSON Schema `enum` (clearer in the document than anyOf of consts). */
export function StringEnum<const T extends string>(values: readonly T[], options: SchemaOptions = {}): TUnsafe<T> {
  return Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });
}

/** A number in a closed range. */
export function NumberIn(range: { min: number; max: number }, options: SchemaOptions = {}) {
  return Type.Number({ minimum: range.min, maximum: range.max, ...options });
}
