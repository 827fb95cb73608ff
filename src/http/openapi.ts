/**
 * The OpenAPI 3.1 document served at /openapi.json and rendered at /docs, assembled when the app
 * is built from the Operations its routes declared (declareRoute: the same schemas they validate
 * with) and the limits the app was created with. Schemas with an `$id` become named components.
 */
import type { Limits } from '../config/load-config.js';
import { ERROR_CODES } from '../errors.js';
import { jsonError, type Json, type Operation } from './operation.js';

/** `operations` in the order the document lists them. */
export function buildOpenApiDocument(operations: readonly Operation[], limits: Limits): Json {
  const components: Record<string, unknown> = {};
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of operations) {
    const { method, path, secured, ...described } = operation;
    paths[path] ??= {};
    const responses = path.startsWith('/v1/') ? withKeyPolicy(described.responses) : described.responses;
    paths[path][method] = toPlainJson({ ...described, responses, ...(secured ? { security: [{ bearerAuth: [] }] } : {}) }, components);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Local inference server', version: '0.1.0', description: description(limits) },
    tags: tags(operations),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key from `npm run keys -- create` or from API_KEYS.' },
      },
      schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))),
    },
    'x-error-codes': Object.entries(ERROR_CODES).map(([code, description]) => ({ code, description })),
  };
}

/**
 * Every /v1 operation may meet its key's rate limit (an operation's own 429 says what else it
 * answers it for); those that run a model (a 503), its model list.
 */
function withKeyPolicy(responses: Record<string, Json>): Record<string, Json> {
  return {
    ...responses,
    ...(responses['503'] ? { '403': jsonError('This API key may not use the model (`keys create --models`).', ['model_not_allowed']) } : {}),
    '429': {
      ...jsonError('This API key is over its requests per minute (`keys create --rpm`); retry after `Retry-After` seconds.', ['rate_limited']),
      headers: { 'Retry-After': { description: 'Seconds until the key may send again.', schema: { type: 'integer' } } },
      ...responses['429'],
    },
  };
}

/**
 * A deep copy as plain JSON (TypeBox's symbol keys dropped) in which every schema with an `$id`
 * is replaced by a `$ref` to a component of that name, registered on first sight.
 */
function toPlainJson(value: unknown, components: Record<string, unknown>): any {
  if (Array.isArray(value)) return value.map((item) => toPlainJson(item, components));
  if (typeof value !== 'object' || value === null) return value;
  const { $id, ...rest } = value as Json;
  const plain = Object.fromEntries(Object.entries(rest).map(([key, item]) => [key, toPlainJson(item, components)]));
  if (typeof $id !== 'string') return plain;
  components[$id] ??= plain;
  return { $ref: `#/components/schemas/${$id}` };
}

/** What the tags that need more than their name say (a task's tag is its task table row's: inference/tasks.ts). */
const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  users: 'The users API: user records, no API key needed.',
  libretranslate: 'The LibreTranslate API, for its clients.',
  tei: "Hugging Face Text Embeddings Inference's API, for its clients.",
};

/** Every tag the operations use, in the order of first use. */
function tags(operations: readonly Operation[]): Json[] {
  const names = [...new Set(operations.flatMap((operation) => operation.tags))];
  return names.map((name) => ({ name, ...(TAG_DESCRIPTIONS[name] ? { description: TAG_DESCRIPTIONS[name] } : {}) }));
}

function description(limits: Limits): string {
  const { timeouts } = limits;
  return [
    'Two APIs. **The users API** (`/users`) manages user records; it needs no API key and answers errors in short plain text.',
    '**The key-protected /v1 API** (`/v1/...`) runs local models for classification, translation, speech to text, text to speech and embeddings.',
    'Every `/v1` request needs `Authorization: Bearer <API_KEY>` (create keys with `npm run keys -- create --name NAME`).',
    'Errors of the key-protected /v1 API are JSON: `{"error": {"message", "type", "param", "code"}}` (`param`: the field at fault, or null); the codes are listed below and in `x-error-codes`. Messages of 5xx errors are generic (the server log has the details under the request id), except the 503s written for clients: `model_not_installed` names the install command and `server_busy` asks to retry.',
    'A request with an unsupported method on a known path is answered 405 (`method_not_allowed`) with an `Allow` header (501 for a method no route uses, such as PROPFIND); an unknown path 404 (`not_found`).',
    'Every response carries `X-Request-Id` (echoed when the client sends one); the server log uses it.',
    'Request fields are strings of well-formed Unicode; lengths are counted in characters (code points). Fields marked `x-not-blank` refuse whitespace-only text, `x-no-control-characters` refuses control characters (one-line fields), and a field marked `x-too-large-status: 413` is answered 413 instead of 400 when over its `maxLength`.',
    `Any request whose body stops arriving for ${timeouts.bodyIdleMs / 1000} s, or arrives slower than ${timeouts.bodyMinBytesPerSecond / 1024} KiB/s after its first ${timeouts.bodyRateGraceMs / 1000} s, is answered 408 (\`request_timeout\`) and its connection closed. A client that goes away before its answer is complete (\`client_closed\`, logged only) cancels its queued and running model work.`,
  ].join('\n\n');
}
