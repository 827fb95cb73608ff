/**
 * The one place errors become responses. The users API answers in short plain text (SPEC), the
 * key-protected /v1 API in JSON `{"error": {"message", "type", "param", "code"}}`, OpenAI's Error object. Unexpected errors are logged with the
 * request id and answered with a generic 500 that leaks nothing.
 */
import { randomUUID } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { STATUS_CODES } from 'node:http';
import { AppError, BEARER_CHALLENGE, ClientClosedError, InferenceFailedError, ModelUnavailableError, type ErrorCode } from '../errors.js';
import type { Logger } from '../logger.js';
import { isCorsHeader } from './cors.js';

/**
 * `text`: the users API; `json`: the /v1 error object; `message`: `{"error": "…"}` (the LibreTranslate
 * API); `tei`: `{"error": "…", "error_type": "…"}` (Text Embeddings Inference's ErrorResponse).
 */
type ErrorFormat = 'text' | 'json' | 'message' | 'tei';

interface MappedError {
  status: number;
  code: ErrorCode;
  message: string;
  /** The request field at fault, when the error is about one; OpenAI's error object always has the key. */
  param?: string;
  headers?: Readonly<Record<string, string>>;
}

const GENERIC_500 = 'Internal Server Error';

/** 501 is a 5xx that describes the request, not the server, so its message is shown. */
class MethodNotImplementedError extends AppError {
  override readonly expose = true;
  constructor(method: string) {
    super(501, 'method_not_allowed', `${method} is not implemented`);
  }
}

export function errorMiddleware(options: { logger: Logger; formatFor: (ctx: Context) => ErrorFormat }): Middleware {
  return async (ctx, next) => {
    const requestId = ctx.get('X-Request-Id').slice(0, 128) || randomUUID();
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new AppError(404, 'not_found', `No route for ${ctx.method} ${ctx.path}`);
      }
      // The router's allowedMethods() sets 405 plus an Allow header and leaves the body to us.
      if (ctx.status === 405 && ctx.body === undefined) {
        throw new AppError(405, 'method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}`);
      }
      // ...and 501 for a method no route uses at all (e.g. PROPFIND).
      if (ctx.status === 501 && ctx.body === undefined) {
        throw new MethodNotImplementedError(ctx.method);
      }
    } catch (error) {
      if (clientDisconnected(ctx, error)) {
        options.logger.info('client closed the connection', { requestId, method: ctx.method, path: ctx.path });
        return;
      }
      const mapped = mapError(error);
      if (mapped.status >= 500 && mapped.code === 'internal_error') {
        options.logger.error('request failed', { requestId, method: ctx.method, path: ctx.path, error });
      } else if (mapped.status >= 500) {
        // The error's own message, with the reason the client is not shown.
        options.logger.warn((error as Error).message, { requestId, method: ctx.method, path: ctx.path, cause: (error as Error).cause });
      }
      respond(ctx, mapped, options.formatFor(ctx));
    }
  };
}

const DISCONNECT_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE', 'HPE_INVALID_EOF_STATE']);

/**
 * The client hung up mid-request (curl ^C, an SDK timeout): nothing failed on our side and no
 * one can read an answer. Both checks, so an EPIPE from a crashed model process still counts as ours.
 * (`req.socket` is null once the request stream itself was destroyed.)
 */
export function clientDisconnected(ctx: Context, error: unknown): boolean {
  if (error instanceof ClientClosedError) return true;
  const code = (error as { code?: unknown })?.code;
  return ctx.req.socket?.destroyed === true && typeof code === 'string' && DISCONNECT_CODES.has(code);
}

function respond(ctx: Context, error: MappedError, format: ErrorFormat): void {
  // Headers set by the failed handler (e.g. Content-Disposition) must not describe the error body.
  // CORS headers too: without them a browser page cannot read the error.
  const keep = { requestId: ctx.response.get('X-Request-Id'), allow: ctx.response.get('Allow') };
  ctx.res.getHeaderNames().forEach((name) => isCorsHeader(name) || ctx.res.removeHeader(name));
  ctx.set('X-Request-Id', keep.requestId);
  if (keep.allow) ctx.set('Allow', keep.allow);
  for (const [name, value] of Object.entries(error.headers ?? {})) ctx.set(name, value);
  // A body left partly read (a 413 part-way through an upload) leaves the connection
  // mid-request; Node resets it after this response, so say "Connection: close" or a
  // keep-alive client fails its next request. A body never read at all is drained by Node,
  // and the client may still be sending it, so that connection is kept.
  if (!ctx.req.complete && ctx.req.readableDidRead) ctx.res.shouldKeepAlive = false;

  ctx.status = error.status;
  if (format === 'json') {
    ctx.body = { error: { message: error.message, type: errorType(error.status), param: error.param ?? null, code: error.code } };
  } else if (format === 'message') {
    ctx.body = { error: error.message };
  } else if (format === 'tei') {
    ctx.body = { error: error.message, error_type: teiErrorType(error.status, error.code) };
  } else {
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = error.message;
  }
}

/** Maps our AppErrors, and the errors koa-body, co-body, formidable and the router throw. */
function mapError(error: unknown): MappedError {
  // Koa's rule: only exposed messages reach clients (below 500, plus the 503s written for
  // clients: model_not_installed names the install command, server_busy says to retry).
  if (error instanceof AppError) {
    return {
      status: error.status,
      code: error.code,
      message: error.expose ? error.message : clientMessage(error),
      ...(error.param === undefined ? {} : { param: error.param }),
      headers: error.headers,
    };
  }
  const status = httpStatusOf(error);
  const type = (error as { type?: string })?.type;
  // zlib/brotli errors from koa-body inflating a body that does not match its Content-Encoding.
  if (isDecompressionError(error)) {
    return { status: 400, code: 'invalid_request', message: 'Request body could not be decoded with its Content-Encoding' };
  }
  if (status === 413 || type === 'entity.too.large') {
    return { status: 413, code: 'payload_too_large', message: 'Request body is too large' };
  }
  if (type === 'entity.parse.failed' || (error instanceof SyntaxError && status === 400)) {
    return { status: 400, code: 'invalid_json', message: 'Request body is not valid JSON' };
  }
  if (status === 415) {
    return { status: 415, code: 'unsupported_media_type', message: messageOf(error, 'Unsupported media type') };
  }
  if (status === 405) {
    return { status: 405, code: 'method_not_allowed', message: messageOf(error, 'Method not allowed') };
  }
  if (status !== undefined && status >= 400 && status < 500) {
    // Every 401 carries a challenge (RFC 9110 §15.5.2), whoever threw it.
    const headers = status === 401 ? { 'WWW-Authenticate': BEARER_CHALLENGE } : undefined;
    return { status, code: 'invalid_request', message: messageOf(error, 'Bad request'), ...(headers ? { headers } : {}) };
  }
  return { status: 500, code: 'internal_error', message: GENERIC_500 };
}

/** What a client is told of an unexposed error; the full message goes to the log (see errorMiddleware). */
function clientMessage(error: AppError): string {
  if (error instanceof ModelUnavailableError) {
    return `Model "${error.modelId}" failed to load; the server log has the reason${error.fix ? `. ${error.fix}` : ''}`;
  }
  if (error instanceof InferenceFailedError) return `Model "${error.modelId}" failed while answering; retrying usually works`;
  return STATUS_CODES[error.status] ?? GENERIC_500;
}

/** Node's zlib errors carry a numeric errno and a Z_* code (brotli: ERR__ERROR_*). */
function isDecompressionError(error: unknown): boolean {
  const { code, errno } = (error ?? {}) as { code?: unknown; errno?: unknown };
  return typeof errno === 'number' && typeof code === 'string' && /^(Z_|ERR__ERROR)/.test(code);
}

function httpStatusOf(error: unknown): number | undefined {
  const candidate = error as { status?: unknown; statusCode?: unknown; httpCode?: unknown };
  for (const value of [candidate?.status, candidate?.statusCode, candidate?.httpCode]) {
    if (typeof value === 'number' && value >= 400 && value < 600) return value;
  }
  return undefined;
}

function messageOf(error: unknown, fallback: string): string {
  const message = (error as { message?: unknown })?.message;
  return typeof message === 'string' && message !== '' ? message : fallback;
}

/** 503s that mean "busy, retry later" (they carry Retry-After), not "cannot serve". */
const BUSY_CODES: ReadonlySet<string> = new Set(['server_busy', 'model_memory_exhausted']);

/**
 * TEI's ErrorType (router/src/lib.rs, which pairs each with a status): `Overloaded` is its 429, so
 * ours and a busy 503; `Unhealthy` is its 503, so a model that cannot serve (not installed, broken,
 * failed); `Backend` its 424; a bad request `Validation`.
 */
function teiErrorType(status: number, code: string): string {
  if (status === 429 || BUSY_CODES.has(code)) return 'Overloaded';
  if (status === 503) return 'Unhealthy';
  if (status === 424 || status >= 500) return 'Backend';
  return 'Validation';
}

/** OpenAI's error types: every 4xx (403 and 429 included) is about the request, never `server_error`. */
export function errorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 404) return 'not_found_error';
  if ((status >= 400 && status < 500) || status === 501) return 'invalid_request_error';
  if (status === 503) return 'service_unavailable_error';
  return 'server_error';
}
