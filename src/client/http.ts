/**
 * The one place requests are sent: the URL, the key, the body, the retry of a busy server, and
 * a refused answer turned into an InferenceError. Methods above it only say what to send.
 */
import { errorFromResponse } from './errors.js';
import { retryDelayMs, sleep, type RetryOptions } from './retry.js';

export interface HttpOptions {
  baseUrl: string;
  apiKey?: string;
  fetch?: typeof fetch;
  retry?: RetryOptions;
}

interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path with its parameters already encoded, e.g. `/users/3`. */
  path: string;
  query?: Record<string, string | undefined>;
  /** A JSON value (sent as application/json), or a FormData (multipart, boundary set by fetch). */
  body?: unknown;
  /** Sends the API key (the /v1 routes); the users routes are open. */
  authorized: boolean;
  signal?: AbortSignal;
}

export class Http {
  readonly #baseUrl: string;
  readonly #apiKey: string | undefined;
  readonly #fetch: typeof fetch;
  readonly #retry: RetryOptions | undefined;

  constructor(options: HttpOptions) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#apiKey = options.apiKey;
    // Called unbound: browsers throw "Illegal invocation" for a fetch detached from window.
    const fetchImpl = options.fetch ?? globalThis.fetch;
    this.#fetch = (input, init) => fetchImpl(input, init);
    this.#retry = options.retry;
  }

  /** Sends the request (again, while a busy server asks and the retry policy allows); resolves with a 2xx response. */
  async send(request: HttpRequest): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      request.signal?.throwIfAborted();
      const response = await this.#fetch(this.#url(request), this.#init(request));
      if (response.ok) return response;
      const error = await errorFromResponse(response);
      const delay = retryDelayMs(error, attempt, this.#retry);
      if (delay === undefined) throw error;
      await sleep(delay, request.signal);
    }
  }

  async json<T>(request: HttpRequest): Promise<T> {
    return (await (await this.send(request)).json()) as T;
  }

  #url({ path, query }: HttpRequest): string {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) params.append(name, value);
    const search = params.toString();
    return `${this.#baseUrl}${path}${search ? `?${search}` : ''}`;
  }

  #init({ method, body, authorized, signal }: HttpRequest): RequestInit {
    const headers: Record<string, string> = {};
    if (authorized && this.#apiKey !== undefined) headers.Authorization = `Bearer ${this.#apiKey}`;
    let payload: BodyInit | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    return { method, headers, ...(payload === undefined ? {} : { body: payload }), ...(signal ? { signal } : {}) };
  }
}
