/**
 * A session's audio failing on the server's side (a broken Silero VAD file fails the open or every
 * push) is logged once a session: each append already answers with its own `error` event, and 35
 * log lines for 3.5 s of audio would bury the cause. Logged as the HTTP routes log a failed request.
 */
import { AppError } from '../../errors.js';
import type { LiveAudioOptions, LiveAudioStream } from '../../inference/types.js';
import type { Logger } from '../../logger.js';

type OpenAudio = (options: LiveAudioOptions) => Promise<LiveAudioStream>;

/** `open`, whose failures (opening or pushing, on any stream it opens) `session` logs once; they are still thrown. */
export function loggingAudioFailures(open: OpenAudio, logger: Logger, session: () => string): OpenAudio {
  let logged = false;
  const fail = (error: unknown): never => {
    if (!logged) logged = logAudioFailure(logger, session(), error);
    throw error;
  };
  return async (options) => {
    const stream = await open(options).catch(fail);
    return { push: (audio) => stream.push(audio).catch(fail), close: () => stream.close() };
  };
}

/** A model the server cannot load is a warning naming it and why, anything else an error; a client's mistake is not logged (false). */
function logAudioFailure(logger: Logger, session: string, error: unknown): boolean {
  if (!(error instanceof AppError)) {
    logger.error('realtime audio failed', { session, error });
    return true;
  }
  if (error.status < 500) return false;
  const model = (error as { modelId?: unknown }).modelId;
  logger.warn(error.message, { session, ...(typeof model === 'string' ? { model } : {}), cause: error.cause });
  return true;
}
