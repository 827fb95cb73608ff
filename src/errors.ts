/**
 * Every error the service answers with on purpose. Each carries its HTTP status and a stable
 * code; `src/http/error-middleware.ts` is the only place that turns them into responses.
 * Anything that is not an AppError becomes a generic 500.
 */

export const ERROR_CODES = {
  invalid_request: 'The request is malformed or a field is invalid; the message names the field.',
  invalid_json: 'The body is not valid JSON.',
  unauthorized: 'The Authorization header is missing, malformed, or the API key is unknown, expired or revoked.',
  model_not_allowed: 'The API key may not use this model (its model list is set by `keys create --models`).',
  rate_limited: "The API key made more requests in the last minute than its limit (`keys create --rpm`); retry after the Retry-After header's seconds.",
  too_many_sessions: 'The API key already holds as many realtime sessions as one key may (maxSessionsPerKey); close one first.',
  not_found: 'No record or route matches the path.',
  model_not_found: 'The model id is not in the manifest (GET /v1/models lists them).',
  wrong_model_task: 'The model exists but serves another task than this endpoint.',
  method_not_allowed: 'The path exists but not for this HTTP method.',
  conflict: 'The request conflicts with a stored record (e.g. a duplicate email).',
  request_timeout: 'The request body arrived too slowly or stopped arriving (see docs/security.md).',
  payload_too_large: 'The body or a field exceeds its documented limit.',
  unsupported_media_type: 'The Content-Type is not accepted by this endpoint.',
  undecodable_audio: 'The audio could not be decoded (corrupt, empty or an unsupported format).',
  model_not_installed: 'The model is known but its files are not installed; the message names the command.',
  model_unavailable:
    'The model is installed but failed to load; when its files are missing, unreadable, cut short or corrupt, the message names the file and the fix.',
  inference_failed: 'The model failed or timed out while answering (e.g. its process crashed); retrying usually works.',
  model_memory_exhausted:
    "Loading the model would pass the memory budget (MODELS_MAX_MEMORY) and every loaded model is answering requests, so none can be unloaded; retry after the Retry-After header's seconds.",
  admin_required: 'The endpoint needs an admin API key (API_KEYS, or `keys create --admin`).',
  server_busy:
    "Too many requests for this task are in progress or queued, or the database is locked by another process; retry after the Retry-After header's seconds.",
  client_closed: 'Logged only, never sent: the client went away before its answer was complete.',
  internal_error: 'An unexpected server error; details are in the server log under the request id.',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class AppError extends Error {
  override name = 'AppError';
  /** Koa convention: messages below 500 are safe to show to the client. */
  readonly expose: boolean;
  /** The request field the error is about (OpenAI's `param`); set by the subclasses that know one. */
  declare readonly param?: string;

  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    /** Response headers that belong to this error (a 401's challenge, a 503's Retry-After). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.expose = status < 500;
  }
}

/** RFC 6750 challenge of the /v1 API; `error="…"` is added when a token was presented. */
export const BEARER_CHALLENGE = 'Bearer realm="v1"';

export class ValidationError extends AppError {
  override name = 'ValidationError';
  constructor(
    message: string,
    /** The field at fault (`audio`, `session.turn_detection.threshold`): the `param` of an OpenAI error object or realtime error event. */
    override readonly param?: string,
  ) {
    super(400, 'invalid_request', message);
  }
}

export class NotFoundError extends AppError {
  override name = 'NotFoundError';
  constructor(what: string, id: string | number) {
    super(404, 'not_found', `${what} ${id} not found`);
  }
}

export class ConflictError extends AppError {
  override name = 'ConflictError';
  constructor(message: string) {
    super(409, 'conflict', message);
  }
}

export class PayloadTooLargeError extends AppError {
  override name = 'PayloadTooLargeError';
  constructor(
    message: string,
    /** The field over its limit, when one is (`input`); absent for the body as a whole. */
    override readonly param?: string,
  ) {
    super(413, 'payload_too_large', message);
  }
}

export class RequestTimeoutError extends AppError {
  override name = 'RequestTimeoutError';
  constructor(message: string) {
    super(408, 'request_timeout', message);
  }
}

/**
 * The client closed the connection before its answer was complete. Nobody can read a
 * response, so the error middleware only logs it; it is the reason a request's AbortSignal
 * carries into the models, which drop the work.
 */
export class ClientClosedError extends AppError {
  override name = 'ClientClosedError';
  constructor() {
    super(499, 'client_closed', 'The client closed the connection before the response was complete');
  }
}

export class UnsupportedMediaTypeError extends AppError {
  override name = 'UnsupportedMediaTypeError';
  constructor(message: string) {
    super(415, 'unsupported_media_type', message);
  }
}

export class UnauthorizedError extends AppError {
  override name = 'UnauthorizedError';
  constructor(message: string, challenge = BEARER_CHALLENGE) {
    super(401, 'unauthorized', message, { 'WWW-Authenticate': challenge });
  }
}

export class UndecodableAudioError extends AppError {
  override name = 'UndecodableAudioError';
  constructor(detail?: string) {
    super(400, 'undecodable_audio', detail ? `could not decode audio: ${detail}` : 'could not decode audio');
  }
}

export class UnknownModelError extends AppError {
  override name = 'UnknownModelError';
  /** `known`: the installed models the client may use instead; `task` names what none is installed of. */
  constructor(id: string, known: readonly string[], task?: string) {
    super(
      404,
      'model_not_found',
      known.length > 0
        ? `Unknown model "${id}". Known models: ${known.join(', ')}`
        : // With nothing to offer the client, tell the operator what to run.
          `Unknown model "${id}", and no ${task ? `${task} ` : ''}model is installed. ` +
            'List the installable ones with `npm run download-models -- --list`, install one with `npm run download-models -- <id>`',
    );
  }
}

export class WrongModelTaskError extends AppError {
  override name = 'WrongModelTaskError';
  constructor(id: string, actual: string, expected: string) {
    super(400, 'wrong_model_task', `Model "${id}" is a ${actual} model, not ${expected}`);
  }
}

export class ModelNotInstalledError extends AppError {
  override name = 'ModelNotInstalledError';
  /** A 503 written for clients: it names the install command. */
  override readonly expose = true;
  constructor(
    readonly modelId: string,
    readonly installCommand = `npm run download-models -- ${modelId}`,
  ) {
    super(503, 'model_not_installed', `Model "${modelId}" is not installed. Run: ${installCommand}`);
  }
}

export class ModelUnavailableError extends AppError {
  override name = 'ModelUnavailableError';
  /**
   * The reason (a library's message, a file path) is for the log; clients are told the model and
   * `fix` (e.g. the reinstall command), when there is one.
   */
  constructor(
    readonly modelId: string,
    readonly reason: string,
    readonly fix?: string,
  ) {
    super(503, 'model_unavailable', `Model "${modelId}" failed to load: ${reason}`);
  }
}

/**
 * A model's files cannot serve it: one is missing, unreadable, cut short or corrupt (found before
 * any session is made, or named by the load that failed on it). A 503 written for clients and
 * operators alike: it names the model, the file (relative to MODELS_DIR), what is wrong and the fix.
 */
export class ModelFilesError extends AppError {
  override name = 'ModelFilesError';
  override readonly expose = true;
  constructor(
    readonly modelId: string,
    readonly file: string,
    readonly problem: string,
    readonly fix: string,
  ) {
    super(503, 'model_unavailable', `Model "${modelId}" cannot be loaded: ${file} ${problem}. ${fix}`);
  }
}

export class InferenceFailedError extends AppError {
  override name = 'InferenceFailedError';
  /** As with ModelUnavailableError, the reason is logged, not sent. */
  constructor(
    readonly modelId: string,
    readonly reason: string,
  ) {
    super(503, 'inference_failed', `Model "${modelId}" failed while answering: ${reason}`);
  }
}

export class ModelNotAllowedError extends AppError {
  override name = 'ModelNotAllowedError';
  constructor(model: string, allowed: readonly string[]) {
    super(403, 'model_not_allowed', `This API key may not use model "${model}"; it may use: ${allowed.join(', ') || 'no models'}`);
  }
}

export class RateLimitedError extends AppError {
  override name = 'RateLimitedError';
  constructor(limitPerMinute: number, retryAfterSeconds: number) {
    super(429, 'rate_limited', `This API key is limited to ${limitPerMinute} requests per minute; retry in ${retryAfterSeconds} s`, {
      'Retry-After': String(retryAfterSeconds),
    });
  }
}

export class TooManySessionsError extends AppError {
  override name = 'TooManySessionsError';
  constructor(perKey: number) {
    super(429, 'too_many_sessions', `This API key already holds ${perKey} realtime session(s), as many as one key may; close one first`);
  }
}

export class ServerBusyError extends AppError {
  override name = 'ServerBusyError';
  /** A 503 written for clients: retry after Retry-After seconds. */
  override readonly expose = true;
  constructor(message: string, retryAfterSeconds: number) {
    super(503, 'server_busy', message, { 'Retry-After': String(retryAfterSeconds) });
  }
}

export class ModelMemoryExhaustedError extends AppError {
  override name = 'ModelMemoryExhaustedError';
  override readonly expose = true;
  constructor(modelId: string, neededBytes: number, budgetBytes: number, busyBytes: number) {
    super(
      503,
      'model_memory_exhausted',
      neededBytes > budgetBytes
        ? `Model "${modelId}" needs about ${mib(neededBytes)}, more than the whole memory budget (MODELS_MAX_MEMORY = ${mib(budgetBytes)})`
        : `Model "${modelId}" needs about ${mib(neededBytes)}, but the models answering requests hold ${mib(busyBytes)} of the ${mib(budgetBytes)} memory budget (MODELS_MAX_MEMORY); retry when they are done`,
      { 'Retry-After': '5' },
    );
  }
}

export class AdminRequiredError extends AppError {
  override name = 'AdminRequiredError';
  constructor(what: string) {
    super(403, 'admin_required', `${what} needs an admin API key (API_KEYS, or keys create --admin)`);
  }
}

const mib = (bytes: number) => (bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MiB` : `${bytes} bytes`);
