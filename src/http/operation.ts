/**
 * How a route describes itself for /openapi.json: method, path, summary, request and response
 * schemas (the same TypeBox objects the route validates with) and the error codes of each
 * status. `declareRoute` registers a route and its Operation from one declaration, so the path
 * served and the path documented cannot differ; openapi.ts assembles the document from the
 * Operations the app declared. Nothing else describes a route.
 */
import Router, { type RouterMiddleware, type RouterOptions } from '@koa/router';
import { Type, type TSchema } from '@sinclair/typebox';
import { ERROR_CODES, type ErrorCode } from '../errors.js';
import { StringEnum } from './schema-types.js';

export type Json = Record<string, unknown>;

export interface Operation {
  method: 'get' | 'post' | 'put' | 'delete';
  /** OpenAPI spelling: `/users/{id}`. */
  path: string;
  tags: readonly string[];
  summary: string;
  description?: string;
  /** Needs `Authorization: Bearer <key>` (every /v1 operation). */
  secured?: boolean;
  parameters?: readonly Json[];
  requestBody?: Json;
  responses: Record<string, Json>;
}

/** A route as declared: the router's layer for it and the middleware it runs (the handler last). */
interface DeclaredRoute {
  layer: Router['stack'][number];
  middleware: readonly RouterMiddleware[];
}

/**
 * A router that keeps the Operation of each route declared on it, in order (routers of one app
 * share the list), and its own routes as declared (router-tree.ts runs a route without parameters
 * from them, rather than from the router's internals).
 */
export type DocumentedRouter = Router & { readonly operations: Operation[]; readonly declared: DeclaredRoute[] };

export function documentedRouter(options: RouterOptions = {}, operations: Operation[] = []): DocumentedRouter {
  return Object.assign(new Router(options), { operations, declared: [] });
}

/** An Operation whose path is the router's spelling, under its prefix: `/engines/:model/translate`. */
export type RouteDeclaration = Omit<Operation, 'path'> & { path: string };

/**
 * Registers `middleware` (the handler last) for the declaration's method and path, and adds its
 * Operation, at the same path in OpenAPI spelling (`/v1/engines/{model}/translate`), to the
 * router's list. The path's parameters must be the documented ones.
 */
export function declareRoute(router: DocumentedRouter, declaration: RouteDeclaration, ...middleware: RouterMiddleware[]): void {
  const path = openApiPath(`${router.opts.prefix ?? ''}${declaration.path}`);
  const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();
  const documented = (declaration.parameters ?? [])
    .filter((parameter) => parameter.in === 'path')
    .map((parameter) => String(parameter.name))
    .sort();
  if (inPath.join() !== documented.join()) {
    throw new Error(`${declaration.method.toUpperCase()} ${path} documents path parameters [${documented.join(', ')}], its path has [${inPath.join(', ')}]`);
  }
  router.operations.push({ ...declaration, path });
  router[declaration.method](declaration.path, ...middleware);
  router.declared.push({ layer: router.stack.at(-1)!, middleware });
}

/** `/users/:id` → `/users/{id}`; a prefixed router's `/` route is the prefix itself. */
function openApiPath(routerPath: string): string {
  const path = routerPath.replace(/:(\w+)/g, '{$1}');
  return path.length > 1 ? path.replace(/\/$/, '') : path;
}

/** Error bodies of the key-protected /v1 API. Named schemas (`$id`) become components of the document. */
const ErrorDetail = Type.Object(
  {
    message: Type.String({ description: 'What went wrong and, where possible, how to fix it.' }),
    type: StringEnum(['invalid_request_error', 'authentication_error', 'not_found_error', 'service_unavailable_error', 'server_error'], {
      description: 'Broad class, OpenAI style.',
    }),
    param: Type.Union([Type.String(), Type.Null()], {
      description: 'The request field the error is about (`input`, `voice`, `chunking_strategy.type`), or null when it is about no one field.',
    }),
    code: StringEnum(Object.keys(ERROR_CODES) as ErrorCode[], { description: 'Stable machine-readable code; see the error code table.' }),
  },
  { $id: 'ErrorDetail' },
);
const ErrorBody = Type.Object({ error: ErrorDetail }, { $id: 'Error', description: 'The body of every error of the key-protected /v1 API.' });

const MiB = 1024 * 1024;
export const megabytes = (bytes: number) => `${bytes / MiB} MB`;
const codeList = (codes: readonly ErrorCode[]) => codes.map((code) => `\`${code}\``).join(', ');

export const jsonRequest = (schema: TSchema, description?: string): Json => ({
  required: true,
  ...(description ? { description } : {}),
  content: { 'application/json': { schema } },
});

export const jsonResponse = (description: string, schema: TSchema | Json): Json => ({ description, content: { 'application/json': { schema } } });

/** Errors of the LibreTranslate API at the root, in its shape: `{"error": "…"}`. */
export function messageError(description: string): Json {
  return { description, content: { 'application/json': { schema: { type: 'object', properties: { error: { type: 'string' } }, required: ['error'] } } } };
}

/** Errors of the TEI API at the root, in TEI's shape: `{"error": "…", "error_type": "Validation"}`. */
export function teiError(description: string): Json {
  return {
    description,
    content: {
      'application/json': {
        schema: {
          type: 'object',
          properties: { error: { type: 'string' }, error_type: { type: 'string', enum: ['Validation', 'Overloaded', 'Unhealthy', 'Backend'] } },
          required: ['error', 'error_type'],
        },
      },
    },
  };
}

/** Errors of the key-protected /v1 API: `{"error": {"message", "type", "param", "code"}}` with the codes this response can carry. */
export function jsonError(summary: string, codes: readonly ErrorCode[]): Json {
  return { description: `${summary} Codes: ${codeList(codes)}.`, 'x-error-codes': codes, content: { 'application/json': { schema: ErrorBody } } };
}

/** Errors of the users API: short plain text. The codes are for reference; the body has none. */
export function textError(description: string, example: string, codes: readonly ErrorCode[]): Json {
  return { description, 'x-error-codes': codes, content: { 'text/plain': { schema: { type: 'string' }, example } } };
}

/** The errors every inference route can answer, whatever its body. */
export const V1_COMMON_ERRORS: Record<string, Json> = {
  '401': jsonError('Missing, malformed, unknown or revoked API key. The response carries `WWW-Authenticate: Bearer`.', ['unauthorized']),
  '404': jsonError('The model id is not in the manifest (GET /v1/models lists them).', ['model_not_found']),
  '500': jsonError('Unexpected server error; details are in the server log under the X-Request-Id of the response.', ['internal_error']),
  '503': jsonError(
    'The model is known but not installed (the message names the install command), failed to load, or failed while answering (retrying usually works; the reason is in the server log); or too many requests of this task are already in progress or queued (`server_busy`, with a `Retry-After` header in seconds).',
    ['model_not_installed', 'model_unavailable', 'inference_failed', 'server_busy'],
  ),
};

export const JSON_ONLY_415 = jsonError('The body is not sent as application/json.', ['unsupported_media_type']);

/** The 400 of a JSON inference route: what the validator and the model lookup answer. */
export const jsonBody400 = (extra = '') =>
  jsonError(`Malformed JSON, a missing or invalid field${extra}, or a model of another task.`, ['invalid_request', 'invalid_json', 'wrong_model_task']);
