/**
 * Request validation: the TypeBox schemas declared beside each route (built with
 * schema-types.ts) are compiled once per app by Ajv, and Ajv's errors are phrased here, in one
 * place, the way clients read them: one message naming the first field that is wrong.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { type AppError, PayloadTooLargeError, ValidationError } from '../errors.js';
import { KEYWORDS } from './schema-types.js';
import { characterCount } from '../character-count.js';

export { characterCount };

export type Validate<T extends TSchema> = (input: unknown) => Static<T>;

export interface RequestValidator {
  /** Compiles once; the returned function checks a body and returns it typed, or throws a 400/413. */
  compile<T extends TSchema>(schema: T): Validate<T>;
}

/** A UTF-16 unit that is half of no pair. JSON can carry one ("\ud800"); UTF-8 cannot store it. */
const LONE_SURROGATE = /\p{Surrogate}/u;
const CONTROL_CHARACTER = /\p{Cc}/u;
/**
 * ES2024's String#isWellFormed (Node ≥ 20; our lib setting is ES2022): native, where the regex
 * walks a two-byte string unit by unit (1M emoji: ~0.5 ms against ~20 ms). Every string is checked.
 */
const isWellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();

/**
 * One per app by default (createApp's `validator`); tests share one across their apps, since
 * compiling every route's schema is most of what building an app costs. Ajv keeps every schema
 * it compiled, so a schema whose content was compiled before (another app with the same limits)
 * gets the same check back.
 */
export function createRequestValidator(): RequestValidator {
  // allErrors: the message reports the first field in schema order, as a reader checks them,
  // not whichever keyword Ajv happens to evaluate first.
  const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: true });
  ajv.addKeyword({
    keyword: KEYWORDS.wellFormed,
    type: 'string',
    schemaType: 'boolean',
    // Stored or encoded, a lone surrogate becomes U+FFFD: what was sent would not be what is kept.
    validate: (on: boolean, data: string) => !on || isWellFormed(data),
  });
  ajv.addKeyword({ keyword: KEYWORDS.notBlank, type: 'string', schemaType: 'boolean', validate: (on: boolean, data: string) => !on || data.trim() !== '' });
  ajv.addKeyword({
    keyword: KEYWORDS.noControlCharacters,
    type: 'string',
    schemaType: 'boolean',
    validate: (on: boolean, data: string) => !on || !CONTROL_CHARACTER.test(data),
  });
  ajv.addKeyword({
    keyword: MAX_CHARACTERS,
    type: 'string',
    schemaType: 'number',
    // `length` never undercounts code points, so only strings over the limit by it need counting.
    validate: (max: number, data: string) => data.length <= max || characterCount(data) <= max,
  });
  // Annotations: read when phrasing an error, and shown in the document.
  for (const keyword of [KEYWORDS.tooLargeStatus, KEYWORDS.invalidMessage, KEYWORDS.missingHint]) ajv.addKeyword({ keyword });

  const compiled = new Map<string, ValidateFunction>();
  return {
    compile<T extends TSchema>(schema: T): Validate<T> {
      const checked = forAjv(schema) as JsonSchema;
      const key = JSON.stringify(checked);
      let validate = compiled.get(key);
      if (!validate) {
        validate = ajv.compile(checked);
        compiled.set(key, validate);
      }
      const numberFields = Object.entries(propertiesOf(schema))
        .filter(([, field]) => field.type === 'number' || field.type === 'integer')
        .map(([name]) => name);
      const check = validate;
      return (input) => {
        const body = normalise(input, numberFields);
        if (check(body)) return body as Static<T>;
        throw toAppError(check.errors ?? [], schema);
      };
    },
  };
}

/**
 * Ajv's own maxLength counts the code points of every string (a loop over each character: most of
 * the time a valid body takes). The document keeps the standard `maxLength`; the schema Ajv
 * compiles checks the same limit through MAX_CHARACTERS, which counts only strings whose UTF-16
 * length is over it.
 */
const MAX_CHARACTERS = 'x-max-characters';

/**
 * The schema as Ajv checks it: cheap lengths (above), and `x-well-formed` on every string, not
 * only the fields built with `Text`: a lone surrogate is refused in whatever string a route
 * declares (a TEI input, a LibreTranslate `q`, a realtime `prompt`), in one place. Without `$id`:
 * names are for the document (nothing refers to them), and one Ajv may compile the same name
 * with two apps' limits.
 */
function forAjv(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(forAjv);
  if (typeof schema !== 'object' || schema === null) return schema;
  const isString = (schema as JsonSchema).type === 'string';
  const copy: Record<string, unknown> = isString ? { [KEYWORDS.wellFormed]: true } : {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$id') continue;
    if (isString && key === 'maxLength') copy[MAX_CHARACTERS] = value;
    // minLength 1 documents what x-not-blank checks (and Ajv would count every string for it).
    else if (isString && key === 'minLength' && value === 1 && (schema as JsonSchema)[KEYWORDS.notBlank]) continue;
    else copy[key] = forAjv(value);
  }
  return copy;
}

/**
 * What the hand-written guards always allowed, kept for clients that rely on it: a top-level
 * `null` means the field was not sent, and a number may come as a numeric string ("1.5").
 */
function normalise(input: unknown, numberFields: readonly string[]): unknown {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return input;
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(input)) {
    if (value === null) continue;
    body[name] = numberFields.includes(name) && typeof value === 'string' && value.trim() !== '' ? numberOr(value) : value;
  }
  return body;
}

function numberOr(text: string): unknown {
  const number = Number(text);
  return Number.isFinite(number) ? number : text;
}

type JsonSchema = Record<string, any>;

function propertiesOf(schema: JsonSchema): Record<string, JsonSchema> {
  return (schema.properties ?? {}) as Record<string, JsonSchema>;
}

/** Earlier ranks are reported first within a field: the order the hand-written guards checked. */
const KEYWORD_RANK: Record<string, number> = {
  required: 0,
  type: 1,
  [KEYWORDS.wellFormed]: 2,
  [KEYWORDS.notBlank]: 3,
  [MAX_CHARACTERS]: 4,
  minLength: 4,
  [KEYWORDS.noControlCharacters]: 5,
};

interface Located {
  error: ErrorObject;
  /** Top-level property name; '' for the body itself. */
  field: string;
  /** Array index inside the field, or -1 for the field itself. */
  item: number;
}

function locate(error: ErrorObject): Located {
  // A field missing from the body is that field's error; one missing inside a field is the field's.
  if (error.keyword === 'required' && error.instancePath === '') return { error, field: String(error.params.missingProperty), item: -1 };
  const [field = '', item] = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'));
  return { error, field, item: item === undefined ? -1 : Number(item) };
}

/** The first error by field order in the schema, then by item, then by KEYWORD_RANK. */
function toAppError(errors: readonly ErrorObject[], schema: JsonSchema): AppError {
  const order = Object.keys(propertiesOf(schema));
  const fieldIndex = (field: string) => (field === '' ? -1 : order.indexOf(field) === -1 ? order.length : order.indexOf(field));
  const rank = (located: Located) => [fieldIndex(located.field), located.item, KEYWORD_RANK[located.error.keyword] ?? 9];
  const first = errors.map(locate).sort((a, b) => compareTuples(rank(a), rank(b)))[0];
  if (!first) return new ValidationError('Request body is invalid');
  const fieldSchema: JsonSchema = propertiesOf(schema)[first.field] ?? {};
  if (fieldSchema.type === 'object') return phraseNested(errors);
  if (Array.isArray(fieldSchema.anyOf) && first.error.keyword !== 'required') return phraseUnion(first.field, fieldSchema.anyOf, errors, schema);
  return phrase(first, fieldSchema);
}

/**
 * A field that takes one of several shapes (`text | text[]`): the errors of the shape the client's
 * value has (by its JSON type) are phrased as that shape's own, so an empty text in an array is
 * reported as such rather than as "not one of the shapes".
 */
function phraseUnion(field: string, branches: readonly JsonSchema[], errors: readonly ErrorObject[], schema: JsonSchema): AppError {
  const union = errors.find((error) => error.keyword === 'anyOf' && error.instancePath === `/${escapePointer(field)}`);
  const value: unknown = union?.data;
  const jsonType = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
  const branch = branches.findIndex((candidate) => candidate.type === jsonType);
  if (branch === -1) {
    const shapes = branches.map((candidate) =>
      candidate.type === 'array' ? `an array of ${candidate.items?.type ?? 'value'}s` : `${/^[aeiou]/.test(candidate.type) ? 'an' : 'a'} ${candidate.type}`,
    );
    return new ValidationError(`"${field}" must be ${shapes.join(' or ')}`, field);
  }
  const prefix = `#/properties/${escapePointer(field)}/anyOf/${branch}/`;
  const ofBranch = errors.filter((error) => error.schemaPath.startsWith(prefix));
  const branchSchema = { ...schema, properties: { ...propertiesOf(schema), [field]: branches[branch] } };
  return ofBranch.length > 0 ? toAppError(ofBranch, branchSchema) : new ValidationError(`"${field}" is invalid`, field);
}

function escapePointer(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * A field that is itself an object (a realtime event's `session`): the deepest error is the most
 * specific one (a union such as `null | {…}` also reports that the value is not null), named by
 * its dotted path in Ajv's words.
 */
function phraseNested(errors: readonly ErrorObject[]): AppError {
  const depth = (error: ErrorObject) => error.instancePath.split('/').length + (error.keyword === 'required' ? 1 : 0);
  const deepest = errors.filter((error) => error.keyword !== 'anyOf').sort((a, b) => depth(b) - depth(a))[0]!;
  const path = deepest.instancePath.split('/').slice(1);
  if (deepest.keyword === 'required') path.push(String(deepest.params.missingProperty));
  return new ValidationError(`"${path.join('.')}" ${nestedMessage(deepest)}`, path.join('.'));
}

/** Ajv's words, except where they would hide what is allowed. */
function nestedMessage(error: ErrorObject): string | undefined {
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'enum':
      return `must be one of: ${(error.params.allowedValues as unknown[]).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(error.params.allowedValue)}`;
    // Our keywords, which Ajv can only call "must pass … keyword validation".
    case KEYWORDS.wellFormed:
      return `is not valid Unicode: it contains the unpaired surrogate ${codePointName(LONE_SURROGATE.exec(String(error.data))![0])}`;
    case MAX_CHARACTERS:
      return `is ${characterCount(String(error.data))} characters; the limit is ${error.schema}`;
    default:
      return error.message;
  }
}

function compareTuples(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

function phrase({ error, field, item }: Located, fieldSchema: JsonSchema): AppError {
  if (field === '') return new ValidationError('Request body must be a JSON object');
  const param = item === -1 ? field : `${field}[${item}]`;
  const name = `"${param}"`;
  const invalid = (message: string) => new ValidationError(message, param);
  const valueSchema: JsonSchema = (item === -1 ? fieldSchema : fieldSchema.items) ?? {};
  // Only string rules read the value; String() of a client's object can throw ({"toString": ""}).
  const value = typeof error.data === 'string' ? error.data : '';

  if (error.keyword === 'required') {
    const hint = fieldSchema[KEYWORDS.missingHint];
    return invalid(`${name} is required${hint ? `: ${hint}` : ''}`);
  }
  if (valueSchema.type === 'number') {
    return invalid(`${name} must be a number between ${valueSchema.minimum} and ${valueSchema.maximum}`);
  }
  if (valueSchema.type === 'integer' && valueSchema.minimum !== undefined && valueSchema.maximum !== undefined) {
    return invalid(`${name} must be an integer from ${valueSchema.minimum} to ${valueSchema.maximum}`);
  }
  if (Array.isArray(valueSchema.enum)) return invalid(`${name} must be one of: ${valueSchema.enum.join(', ')}`);
  if (valueSchema.type === 'array' && item === -1) {
    return invalid(`${name} must be an array of ${valueSchema.minItems ?? 0} to ${valueSchema.maxItems} strings`);
  }
  switch (error.keyword) {
    case 'type':
      return invalid(`${name} must be a ${valueSchema.type}`);
    case KEYWORDS.wellFormed:
      return invalid(`${name} is not valid Unicode: it contains the unpaired surrogate ${codePointName(LONE_SURROGATE.exec(value)![0])}`);
    case KEYWORDS.notBlank:
      return invalid(`${name} must not be empty`);
    case MAX_CHARACTERS: {
      const message = `${name} is ${characterCount(value)} characters; the limit is ${valueSchema.maxLength}`;
      return valueSchema[KEYWORDS.tooLargeStatus] === 413 ? new PayloadTooLargeError(message, param) : invalid(message);
    }
    case KEYWORDS.noControlCharacters:
      return invalid(`${name} must not contain control characters (found ${codePointName(CONTROL_CHARACTER.exec(value)![0])})`);
  }
  const custom = valueSchema[KEYWORDS.invalidMessage];
  if (custom) return invalid(`${name} ${custom}`);
  return invalid(`${name} is invalid`);
}

/** "U+0000": how messages name a character that cannot be shown as itself. */
function codePointName(character: string): string {
  return `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}
