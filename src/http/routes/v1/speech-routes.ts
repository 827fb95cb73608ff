/**
 * POST /v1/text-to-speech: JSON {model, input, voice?, speed?, response_format?, sample_rate?} → audio.
 *
 * MP3, PCM, Ogg Opus, AAC and WAV are streamed (chunked) piece by piece, so the first audio leaves before the whole
 * text is synthesised (a WAV spoken in one piece is sent whole, its header carrying the length). Errors before the first byte are normal JSON errors; once audio has
 * been sent the status cannot change, so a later failure is reported to the app's error
 * listener and the connection is cut (the client sees an incomplete chunked response rather
 * than a silently truncated file).
 */
import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { LIMIT_SETTINGS, type Limits } from '../../../config/load-config.js';
import { ValidationError } from '../../../errors.js';
import type { Models } from '../../scoped-models.js';
import { outputSampleRate } from '../../../audio/codec-sample-rates.js';
import { startsWavStream } from '../../../audio/encode-wav.js';
import { MAX_WHOLE_FLAC_SECONDS, SPEECH_FORMATS, SPEECH_MEDIA_TYPES, SPEECH_SAMPLE_RATES, type SpeechFormat } from '../../../inference/types.js';
import { taskTag } from '../../../inference/tasks.js';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { jsonBody } from '../../body-parsers.js';
import {
  declareRoute,
  JSON_ONLY_415,
  jsonBody400,
  jsonError,
  jsonRequest,
  megabytes,
  V1_COMMON_ERRORS,
  type DocumentedRouter,
  type Json,
  type RouteDeclaration,
} from '../../operation.js';
import { NumberIn, StringEnum, Text } from '../../schema-types.js';
import type { V1RouteDeps } from '../v1-router.js';
import { requestSignal } from '../../request-signal.js';

const SPEED_RANGE = Object.freeze({ min: 0.25, max: 4 });

interface SpeechRequest {
  model: string;
  input: string;
  voice?: string;
  speed?: number;
  format: SpeechFormat;
  /** `stream_format: "sse"`: the audio as OpenAI's speech.audio.delta events, base64 chunks. */
  events: boolean;
  /** Output sample rate; absent: the voice's own (24 kHz for pcm). */
  sampleRate?: number;
}

/** The fields of both speech routes; the OpenAI alias differs only in what it says about them. */
export const speechRequestFields = (limits: Limits, formatDescription: string, voiceDescription: string) => ({
  model: Text('Text-to-speech model id.', { maxLength: 200 }),
  input: Text('The text to speak.', { maxLength: limits.maxSpeechInputChars, tooLargeStatus: 413 }),
  voice: Type.Optional(Text(voiceDescription, { maxLength: 100 })),
  speed: Type.Optional(NumberIn(SPEED_RANGE, { default: 1 })),
  response_format: Type.Optional(StringEnum(SPEECH_FORMATS, { description: formatDescription, default: 'mp3' })),
  sample_rate: Type.Optional(
    Type.Integer({
      minimum: 8000,
      maximum: 48000,
      description: `Output sample rate in Hz: ${SPEECH_SAMPLE_RATES.mp3.join(', ')} (\`opus\`: ${SPEECH_SAMPLE_RATES.opus.join(', ')}); default the voice's own (24000 for \`pcm\`, as OpenAI, and for \`opus\` when Opus cannot carry the voice's rate).`,
    }),
  ),
  stream_format: Type.Optional(
    StringEnum(['audio', 'sse'] as const, {
      description:
        '`audio` (default): the audio bytes; `sse`: server-sent `speech.audio.delta` events (base64 chunks; FLAC and a WAV spoken in one piece, sent whole, as one), then `speech.audio.done`.',
    }),
  ),
});

export const speechRequest = (limits: Limits) =>
  Type.Object(speechRequestFields(limits, 'Audio format.', 'Voice or speaker name, where the model has several.'), { $id: 'SpeechRequest' });

export function speechRoutes(router: DocumentedRouter, deps: V1RouteDeps): void {
  const request = speechRequest(deps.limits);
  const parse = deps.validator.compile(request);
  declareRoute(
    router,
    speechOperation('/text-to-speech', 'Speak a text', 'Synthesises `input` and streams the audio as it is produced.', request, deps.limits),
    deps.admit('text-to-speech'),
    jsonBody(deps.limits.maxJsonBytes, LIMIT_SETTINGS.maxJsonBytes),
    (ctx) => deps.speak(ctx, toSpeechRequest(parse(ctx.request.body))),
  );
}

export function toSpeechRequest(body: Static<ReturnType<typeof speechRequest>>): SpeechRequest {
  const { model, input, voice, speed, response_format, stream_format, sample_rate } = body;
  const format = response_format ?? 'mp3';
  if (sample_rate !== undefined && !SPEECH_SAMPLE_RATES[format].includes(sample_rate)) {
    throw new ValidationError(
      `"sample_rate" ${sample_rate} is not supported for ${format}; use one of: ${SPEECH_SAMPLE_RATES[format].join(', ')}`,
      'sample_rate',
    );
  }
  return { model, input, voice, speed, format, events: stream_format === 'sse', ...(sample_rate === undefined ? {} : { sampleRate: sample_rate }) };
}

/** The declaration of both speech routes, from their request schema. */
export function speechOperation(path: string, summary: string, description: string, request: TSchema, limits: Limits): RouteDeclaration {
  const audio = (type: string): Json => ({ schema: { type: 'string', contentMediaType: type } });
  return {
    method: 'post',
    path,
    tags: [taskTag('text-to-speech')],
    summary,
    description,
    secured: true,
    requestBody: jsonRequest(request),
    responses: {
      '200': {
        description:
          'The spoken audio: MP3 (default), PCM (16-bit signed little-endian mono at 24 kHz, no header, as OpenAI sends it), Ogg Opus, AAC (ADTS) or WAV streamed piece by piece (the header of a streamed WAV gives its sizes as 0xFFFFFFFF, unknown, as OpenAI does; text spoken in one piece comes as a whole WAV); FLAC whole (its header carries the length).',
        content: {
          ...Object.fromEntries([...new Set(Object.values(SPEECH_MEDIA_TYPES))].map((type) => [type, audio(type)])),
          'text/event-stream': {
            schema: {
              type: 'string',
              description: 'With `stream_format: "sse"`: `speech.audio.delta` events (`audio`: base64 of the next chunk), then one `speech.audio.done`.',
            },
          },
        },
      },
      '400': jsonBody400(),
      ...V1_COMMON_ERRORS,
      '413': jsonError(
        `The body is over ${megabytes(limits.maxJsonBytes)}, \`input\` is over ${limits.maxSpeechInputChars} characters, or a \`flac\` answer (sent whole) would hold over ${MAX_WHOLE_FLAC_SECONDS / 60} minutes of audio.`,
        ['payload_too_large'],
      ),
      '415': JSON_ONLY_415,
    },
  };
}

export type SpeechResponder = (ctx: Context, request: SpeechRequest) => Promise<void>;

/** Shared by /v1/text-to-speech and the OpenAI-style /v1/audio/speech (one per app). */
export function createSpeechResponder(deps: { models: Models }): SpeechResponder {
  return async (ctx, request) => {
    const synthesizer = await deps.models.get(request.model, 'text-to-speech');
    const chunks = synthesizer.speak(request.input, {
      voice: request.voice,
      speed: request.speed,
      format: request.format,
      ...(request.sampleRate === undefined ? {} : { sampleRate: request.sampleRate }),
      signal: requestSignal(ctx),
    });
    // Pull the first chunk before committing to a status: until then errors are plain JSON.
    const first = await chunks.next();
    if (first.done) throw new ValidationError('"input" contains nothing that can be spoken', 'input');

    ctx.status = 200;
    ctx.set('Cache-Control', 'no-store');
    // Headerless PCM needs its rate said somewhere; the other formats carry it, but it costs nothing.
    ctx.set('X-Sample-Rate', String(outputSampleRate(request.format, synthesizer.sampleRate, request.sampleRate)));
    if (request.events) {
      ctx.type = 'text/event-stream';
      ctx.set('X-Accel-Buffering', 'no'); // proxies must pass each event on at once
      ctx.body = Readable.from(speechEvents(ctx, first.value, chunks), { objectMode: false });
      return;
    }
    ctx.type = SPEECH_MEDIA_TYPES[request.format];
    // A whole WAV (its header carries the length) goes out as one body, with a Content-Length.
    if (request.format === 'wav' && !startsWavStream(first.value)) {
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

/**
 * OpenAI's speech events: each chunk base64 in a delta, then done (tokens are not counted here:
 * 0). The done event's counts are under OpenAI's `usage` and, for clients written against
 * speaches, `token_usage`.
 */
async function* speechEvents(ctx: Context, first: Uint8Array, rest: AsyncGenerator<Uint8Array>): AsyncGenerator<string> {
  const event = (value: object) => `data: ${JSON.stringify(value)}\n\n`;
  for await (const chunk of afterFirst(ctx, first, rest)) yield event({ type: 'speech.audio.delta', audio: chunk.toString('base64') });
  const tokens = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
  if (!ctx.res.destroyed) yield event({ type: 'speech.audio.done', usage: tokens, token_usage: tokens });
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
