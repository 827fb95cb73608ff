/**
 * Opt-in retry of a 503 `server_busy` (a full admission queue, or a database another process
 * holds locked). Only that answer is retried: the server did none of the work (the queue refuses
 * before the model runs, the lock before the write), so sending it again is safe for every method. The wait is what `Retry-After` asks for, and a
 * request whose server asks for longer than `maxDelayMs` fails at once rather than waiting less
 * than asked (it would only be refused again).
 */
import { InferenceError } from './errors.js';

export interface RetryOptions {
  /** Retries after the first attempt (0: none). */
  maxRetries: number;
  /** The longest wait the client accepts before one retry (default 10,000 ms). */
  maxDelayMs?: number;
}

const DEFAULT_MAX_DELAY_MS = 10_000;
/** What the server sends today; used when a busy answer has no Retry-After. */
const DEFAULT_RETRY_AFTER_SECONDS = 1;

/** The delay before the next attempt, or undefined when `error` after `attempt` retries is final. */
export function retryDelayMs(error: unknown, attempt: number, options: RetryOptions | undefined): number | undefined {
  if (!options || attempt >= options.maxRetries) return undefined;
  if (!(error instanceof InferenceError) || error.status !== 503 || error.code !== 'server_busy') return undefined;
  const delay = (error.retryAfter ?? DEFAULT_RETRY_AFTER_SECONDS) * 1000;
  return delay <= (options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS) ? delay : undefined;
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
