/**
 * POST /v1/text-to-speech: JSON {model, input, voice?, speed?, response_format?} → audio.
 *
 * MP3 is streamed (chunked) sentence by sentence, so the first audio leaves before the whole
 * text is synthesised. Errors before the first byte are normal JSON errors; once audio has
 * been sent the status cannot change, so a later failure is reported to the app's error
 * listener and the connection is cut (the client sees an incomplete chunked response rather
 * than a silently truncated file).
 */
import { Readable } from 'node:stream';
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Limits } from '../../../config/load-config.js';
import { ValidationError } from '../../../errors.js';
import type { ModelRegistry } from '../../../inference/model-registry.js';
import { SPEECH_MEDIA_TYPES, type SpeechFormat } from '../../../inference/types.js';
import { jsonBody } from '../../body-parsers.js';
import { optionalEnum, optionalNumber, optionalString, requireObject, requireString, type JsonObject } from '../../validation.js';
import type { V1RouteDeps } from '../v1-router.js';
import { requestSignal } from '../../request-signal.js';

export const SPEECH_FORMATS: readonly SpeechFormat[] = ['mp3', 'wav'];
export const SPEED_RANGE = Object.freeze({ min: 0.25, max: 4 });

export interface SpeechRequest {
  model: string;
  input: string;
  voice?: string;
  speed?: number;
  format: SpeechFormat;
}

export function speechRoutes(router: Router, deps: V1RouteDeps): void {
  router.post('/text-to-speech', deps.admit('text-to-speech'), jsonBody(deps.limits.maxJsonBytes), (ctx) =>
    deps.speak(ctx, parseSpeechRequest(requireObject(ctx.request.body), deps.limits)),
  );
}

export function parseSpeechRequest(body: JsonObject, limits: Limits): SpeechRequest {
  return {
    model: requireString(body, 'model', { maxLength: 200 }),
    input: requireString(body, 'input', { maxLength: limits.maxSpeechInputChars, tooLargeStatus: 413 }),
    voice: optionalString(body, 'voice', { maxLength: 100 }),
    speed: optionalNumber(body, 'speed', SPEED_RANGE),
    format: optionalEnum(body, 'response_format', SPEECH_FORMATS) ?? 'mp3',
  };
}

export type SpeechResponder = (ctx: Context, request: SpeechRequest) => Promise<void>;

/** Shared by /v1/text-to-speech and the OpenAI-style /v1/audio/speech (one per app). */
export function createSpeechResponder(deps: { models: ModelRegistry }): SpeechResponder {
  return async (ctx, request) => {
    const synthesizer = await deps.models.get(request.model, 'text-to-speech');
    const chunks = synthesizer.speak(request.input, {
      voice: request.voice,
      speed: request.speed,
      format: request.format,
      signal: requestSignal(ctx),
    });
    // Pull the first chunk before committing to a status: until then errors are plain JSON.
    const first = await chunks.next();
    if (first.done) throw new ValidationError('"input" contains nothing that can be spoken');

    ctx.status = 200;
    ctx.type = SPEECH_MEDIA_TYPES[request.format];
    ctx.set('Cache-Control', 'no-store');
    if (request.format === 'wav') {
      ctx.body = toBuffer(first.value);
      await chunks.return(undefined);
      return;
    }
    ctx.body = Readable.from(afterFirst(ctx, first.value, chunks), { objectMode: false });
  };
}

async function* afterFirst(ctx: Context, first: Uint8Array, rest: AsyncGenerator<Uint8Array>): AsyncGenerator<Buffer> {
  yield toBuffer(first);
  try {
    for await (const chunk of rest) yield toBuffer(chunk);
  } catch (error) {
    // Headers are gone: log through the app, then cut the connection so the client notices.
    ctx.app.emit('error', error, ctx);
    ctx.res.destroy();
  }
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
