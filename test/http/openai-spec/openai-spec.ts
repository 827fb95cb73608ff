/**
 * OpenAI's own OpenAPI document (test/fixtures/openai-openapi/openapi.subset.json), read as the
 * judge of our OpenAI routes: each answer is checked against the schema the document gives its
 * operation for that status and media type, and each request field comes from the operation's
 * request schema. Nothing here names a route or a format: a new operation or format in the
 * document is covered by reading it.
 *
 * Where the document does not say, these rules stand in (each says why):
 * - an error status the operation does not document is checked against `ErrorResponse`, the one
 *   error shape the document defines (it documents errors nowhere per operation);
 * - `format: binary` content (speech's `application/octet-stream`) is any non-empty bytes, under any
 *   media type: it says "a file", and OpenAI itself labels the audio `audio/mpeg` and so on;
 * - a `response_format` the request schema lists whose media type the responses do not (`text`,
 *   `srt`, `vtt`) must answer non-empty text under a `text/*` type;
 * - a `oneOf` of answers whose branches overlap (a verbose_json answer also satisfies the plain
 *   json schema, which requires only `text`, so no answer can be exactly one of them) is checked
 *   against the branch the request's `response_format` names (`verbose_json` →
 *   `…ResponseVerboseJson`), and only when no branch is named, as the `oneOf` itself;
 * - with `encoding_format: base64` each embedding is base64 text, as that field's own description
 *   says, where the Embedding schema allows only the float array: the answer is checked with each
 *   embedding decoded back to its floats (float32, little-endian, as the SDKs decode it).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { REPO_ROOT } from '../../audio/audio-test-helpers.js';

type Json = Record<string, any>;

const SPEC_ID = 'https://spec.openai.test/openapi.json';
export const SPEC: Json = JSON.parse(readFileSync(join(REPO_ROOT, 'test/fixtures/openai-openapi/openapi.subset.json'), 'utf8'));

// strict off: the document carries OpenAPI's and Stainless's own keywords (discriminator, x-…);
// formats off: `binary`, `double`, `unixtime` are descriptions, not checks.
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema({ ...SPEC, $id: SPEC_ID });
const compiled = new Map<string, ValidateFunction>();

const pointer = (...parts: string[]) => parts.map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/** A validator for the schema at a JSON pointer of the document. */
function validatorAt(path: string): ValidateFunction {
  let validate = compiled.get(path);
  if (!validate) {
    validate = ajv.compile({ $ref: `${SPEC_ID}#/${path}` });
    compiled.set(path, validate);
  }
  return validate;
}

/** The schema a `$ref` names, or the schema itself. */
export function resolve(schema: Json): Json {
  if (typeof schema?.$ref !== 'string') return schema;
  const parts = schema.$ref.replace(/^#\//, '').split('/');
  return resolve(parts.reduce((node: Json, part: string) => node[part.replaceAll('~1', '/').replaceAll('~0', '~')], SPEC));
}

export interface SpecOperation {
  method: string;
  /** As the document spells it: `/audio/speech`, `/models/{model}`. */
  path: string;
  operation: Json;
}

/** The document's operations on the given paths (the ones this server implements). */
export function specOperations(paths: readonly string[]): SpecOperation[] {
  return paths.flatMap((path) =>
    Object.entries(SPEC.paths[path] ?? {})
      .filter(([method]) => ['get', 'post', 'put', 'delete'].includes(method))
      .map(([method, operation]) => ({ method, path, operation: operation as Json })),
  );
}

export function specOperation(method: string, path: string): SpecOperation {
  const operation = SPEC.paths[path]?.[method];
  if (!operation) throw new Error(`the spec has no ${method.toUpperCase()} ${path}`);
  return { method, path, operation };
}

/** The request body's media type and its (resolved) object schema. */
export function requestBody(op: SpecOperation): { mediaType: string; schema: Json } | undefined {
  const content = op.operation.requestBody?.content as Json | undefined;
  if (!content) return undefined;
  const [mediaType, entry] = Object.entries(content)[0]!;
  return { mediaType, schema: resolve((entry as Json).schema) };
}

/** The `response_format` values the request schema lists, and where their answers differ. */
export function responseFormats(op: SpecOperation): string[] {
  const property = requestBody(op)?.schema.properties?.response_format;
  return property ? (resolve(property).enum as string[]) : [];
}

export interface Answer {
  status: number;
  /** The Content-Type header. */
  contentType: string;
  /** The raw body. */
  bytes: Buffer;
}

/** Why the answer does not conform; empty when it does. */
export function nonConformance(op: SpecOperation, answer: Answer, request: { responseFormat?: string; encodingFormat?: string } = {}): string[] {
  const mediaType = answer.contentType.split(';')[0]!.trim().toLowerCase();
  const responses = op.operation.responses as Json;
  const documented = (responses[String(answer.status)] ?? responses.default) as Json | undefined;
  const content = documented?.content as Json | undefined;
  if (answer.status >= 400 && !content) {
    if (mediaType !== 'application/json') return [`a ${answer.status} must be JSON (ErrorResponse), got ${mediaType}`];
    return schemaErrors(validatorAt('components/schemas/ErrorResponse'), parseJson(answer.bytes));
  }
  if (!content) return [`the spec documents no ${answer.status} for ${op.method.toUpperCase()} ${op.path}`];
  const entry = content[mediaType] as Json | undefined;
  if (entry) {
    const at = pointer('paths', op.path, op.method, 'responses', String(answer.status), 'content', mediaType, 'schema');
    if (mediaType === 'text/event-stream') return eventErrors(validatorAt(at), answer.bytes);
    if (isBinary(entry.schema)) return answer.bytes.length > 0 ? [] : ['empty body'];
    const body = parseJson(answer.bytes);
    return schemaErrors(validatorAt(namedBranch(entry.schema, at, request.responseFormat)), request.encodingFormat === 'base64' ? base64Decoded(body) : body);
  }
  const binary = Object.entries(content).find(([type, candidate]) => type !== 'text/event-stream' && isBinary((candidate as Json).schema));
  if (binary) return answer.bytes.length > 0 ? [] : ['empty body'];
  const format = request.responseFormat;
  if (format !== undefined && responseFormats(op).includes(format) && !/json/.test(format)) {
    if (!mediaType.startsWith('text/')) return [`response_format ${format} must answer text/*, got ${mediaType}`];
    return answer.bytes.toString('utf8').trim() === '' ? ['empty text'] : [];
  }
  return [`the spec documents no ${mediaType} answer for ${answer.status} (response_format ${format ?? 'none'})`];
}

const isBinary = (schema: Json | undefined) => schema?.type === 'string' && schema.format === 'binary';

/** `verbose_json` → the oneOf branch `…VerboseJson`; the whole schema when no branch is named by it. */
function namedBranch(schema: Json, at: string, responseFormat: string | undefined): string {
  if (!Array.isArray(schema.oneOf) || responseFormat === undefined) return at;
  const suffix = `Response${responseFormat
    .split('_')
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('')}`;
  const index = (schema.oneOf as Json[]).findIndex((branch) => typeof branch.$ref === 'string' && branch.$ref.endsWith(suffix));
  return index === -1 ? at : `${at}/oneOf/${index}`;
}

/** The answer with each `data[].embedding` that is base64 text as its float32 numbers. */
function base64Decoded(body: unknown): unknown {
  const data = (body as Json | undefined)?.data;
  if (!Array.isArray(data)) return body;
  const floats = (text: string) => {
    const bytes = Buffer.from(text, 'base64');
    return Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4));
  };
  return { ...(body as Json), data: data.map((item: Json) => (typeof item?.embedding === 'string' ? { ...item, embedding: floats(item.embedding) } : item)) };
}

function schemaErrors(validate: ValidateFunction, value: unknown): string[] {
  if (value instanceof Error) return [value.message];
  return validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message} (${error.schemaPath})`);
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return new Error(`not JSON: ${bytes.toString('utf8').slice(0, 80)}`);
  }
}

/** Server-sent events: each `data:` line one JSON event of the schema. */
export function sseEvents(bytes: Buffer): unknown[] {
  return bytes
    .toString('utf8')
    .split(/\r?\n\r?\n/)
    .map((block) =>
      block
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n'),
    )
    .filter((data) => data !== '' && data !== '[DONE]')
    .map((data) => JSON.parse(data));
}

function eventErrors(validate: ValidateFunction, bytes: Buffer): string[] {
  const events = sseEvents(bytes);
  if (events.length === 0) return ['no events'];
  return events.flatMap((event, index) => schemaErrors(validate, event).map((error) => `event ${index} (${(event as Json).type}): ${error}`));
}
