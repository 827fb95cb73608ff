/**
 * One error type for every answer the server refuses. The /v1 routes answer
 * `{"error": {"message", "type", "param", "code"}}`; the users routes answer plain text, so their code is
 * read from the status; the LibreTranslate-style routes answer `{"error": "…"}`.
 */

/** The server's error codes (its /openapi.json `x-error-codes`), plus the client's own `stream_interrupted`. */
export type ErrorCode =
  | 'invalid_request'
  | 'invalid_json'
  | 'unauthorized'
  | 'model_not_allowed'
  | 'rate_limited'
  | 'too_many_sessions'
  | 'not_found'
  | 'model_not_found'
  | 'wrong_model_task'
  | 'method_not_allowed'
  | 'conflict'
  | 'request_timeout'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'undecodable_audio'
  | 'model_not_installed'
  | 'model_unavailable'
  | 'model_memory_exhausted'
  | 'admin_required'
  | 'inference_failed'
  | 'server_busy'
  | 'internal_error'
  | 'stream_interrupted';

export class InferenceError extends Error {
  override name = 'InferenceError';

  constructor(
    /** The HTTP status (200 for `stream_interrupted`: the answer had begun). */
    readonly status: number,
    /** The server's stable code; a `string` too, so a newer server's codes pass through. */
    readonly code: ErrorCode | (string & {}),
    message: string,
    /** The response's `X-Request-Id`: the server log has the details under it. */
    readonly requestId?: string,
    /** Seconds the server asked to wait (`Retry-After` of a 503 `server_busy` or a 429). */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

/** The users API's plain-text errors carry no code: each status has one meaning there. */
const CODE_OF_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: 'invalid_request',
  401: 'unauthorized',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'server_busy',
};

/** Reads a refused response's body into an InferenceError. */
export async function errorFromResponse(response: Response): Promise<InferenceError> {
  const requestId = response.headers.get('X-Request-Id') ?? undefined;
  const retryAfter = retryAfterSeconds(response.headers.get('Retry-After'));
  const text = await response.text().catch(() => '');
  const fallbackCode = CODE_OF_STATUS[response.status] ?? (response.status >= 500 ? 'internal_error' : 'invalid_request');
  let code: string = fallbackCode;
  let message = text.trim() || response.statusText || `HTTP ${response.status}`;
  if ((response.headers.get('Content-Type') ?? '').includes('json')) {
    const error = parseJson(text)?.error;
    if (typeof error === 'string') message = error;
    else if (error && typeof error === 'object') {
      const fields = error as { message?: unknown; code?: unknown };
      if (typeof fields.message === 'string') message = fields.message;
      if (typeof fields.code === 'string') code = fields.code;
    }
  }
  return new InferenceError(response.status, code, shorten(message), requestId, retryAfter);
}

/** A proxy's HTML error page is not a message; its start is enough to recognise it. */
const MAX_MESSAGE_CHARS = 1000;

function shorten(message: string): string {
  return message.length > MAX_MESSAGE_CHARS ? `${message.slice(0, MAX_MESSAGE_CHARS)}…` : message;
}

/** `Retry-After` is seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

function parseJson(text: string): { error?: unknown } | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? (value as { error?: unknown }) : undefined;
  } catch {
    return undefined;
  }
}
