/**
 * The parameters both speech-to-text route files share: one schema that validates them (from the
 * form, query string or X- headers, see audio-upload.ts) and documents the form and the
 * parameters; and the step that turns a checked upload into what a Transcriber takes.
 */
import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox';
import { FREE_SECONDS, MAX_FRAMES_PER_INPUT_BYTE } from '../../../audio/decode-budget.js';
import type { Limits } from '../../../config/load-config.js';
import type { EncodedAudio, TranscribeOptions } from '../../../inference/types.js';
import { taskTag } from '../../../inference/tasks.js';
import { jsonError, V1_COMMON_ERRORS, megabytes, type Json, type RouteDeclaration } from '../../operation.js';
import { NumberIn, StringEnum, Text } from '../../schema-types.js';
import type { RequestValidator } from '../../validation.js';
import { fieldHeader, type AudioUpload } from './audio-upload.js';
import { decodingFields, toDecodingOptions } from './decoding-fields.js';

export const transcriptionFields = {
  model: Text('Speech-to-text model id (required).', { missingHint: 'pass ?model=, an X-Model header, or a multipart "model" field' }),
  language: Type.Optional(Text('Spoken language as a short code such as `en`; detected when omitted (multilingual models).', { maxLength: 32 })),
  task: Type.Optional(
    StringEnum(['transcribe', 'translate'] as const, { description: '`transcribe` (default) or `translate` (into English, Whisper models).' }),
  ),
  vad_filter: Type.Optional(
    StringEnum(['true', 'false'] as const, {
      description:
        'Transcribe only the speech Silero VAD finds (`true`) or all the audio (`false`). Default: on for audio over 30 s when the VAD model is installed. Audio without speech answers an empty transcript.',
    }),
  ),
  min_silence_duration_ms: Type.Optional(
    NumberIn({ min: 0, max: 60_000 }, { description: 'VAD: a pause shorter than this does not end a stretch of speech (default 2000).' }),
  ),
  speech_pad_ms: Type.Optional(
    NumberIn({ min: 0, max: 10_000 }, { description: 'VAD: each stretch of speech is widened by this much on both sides (default 400).' }),
  ),
  vad_threshold: Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      exclusiveMaximum: 1,
      description: 'VAD: a 32 ms frame whose speech probability is at least this is speech (default 0.5).',
    }),
  ),
  stream: Type.Optional(
    StringEnum(['true', 'false'] as const, {
      description: '`true`: answer `text/event-stream` with `transcript.text.delta` events as the audio is transcribed, then `transcript.text.done`.',
    }),
  ),
  ...decodingFields,
};

interface TranscriptionRequest {
  modelId: string;
  audio: EncodedAudio;
  options: TranscribeOptions;
  /** Answer with server-sent events (transcription-stream.ts). */
  stream: boolean;
}

type TranscriptionFields = Static<TObject<typeof transcriptionFields>>;

/** Compiles the fields schema once; the returned function checks an upload's fields. */
export function transcriptionFieldsParser<P extends typeof transcriptionFields & TProperties>(validator: RequestValidator, fields: P) {
  const parse = validator.compile(Type.Object(fields));
  return (upload: AudioUpload) => parse(upload.fields) as Static<TObject<P>>;
}

export function toTranscriptionRequest(upload: AudioUpload, fields: TranscriptionFields, limits: Limits, extra: TranscribeOptions = {}): TranscriptionRequest {
  return {
    modelId: fields.model,
    audio: { bytes: upload.bytes, contentType: upload.contentType, maxSeconds: limits.maxAudioSeconds },
    options: { language: fields.language, task: fields.task, ...vadOptions(fields), ...decodingOption(fields), ...extra },
    stream: fields.stream === 'true',
  };
}

function decodingOption(fields: TranscriptionFields): Pick<TranscribeOptions, 'decoding'> {
  const decoding = toDecodingOptions(fields);
  return decoding ? { decoding } : {};
}

function vadOptions(fields: TranscriptionFields): Pick<TranscribeOptions, 'vadFilter' | 'vad'> {
  const vad = { minSilenceDurationMs: fields.min_silence_duration_ms, speechPadMs: fields.speech_pad_ms, threshold: fields.vad_threshold };
  return {
    ...(fields.vad_filter === undefined ? {} : { vadFilter: fields.vad_filter === 'true' }),
    ...(Object.values(vad).some((value) => value !== undefined) ? { vad } : {}),
  };
}

const AUDIO_BODY_TYPES = ['audio/mpeg', 'audio/wav', 'audio/flac', 'audio/ogg', 'audio/webm', 'audio/mp4', 'audio/aac'];

/** Each field may come as `?name=` or an `X-Name` header with a raw audio body. */
function audioParameters(fields: TProperties): Json[] {
  return Object.entries(fields).flatMap(([name, schema]) => {
    const { description, ...rest } = schema as unknown as Json;
    return [
      { name, in: 'query', required: false, description, schema: rest },
      { name: fieldHeader(name), in: 'header', required: false, description: `Same as the \`${name}\` query parameter.`, schema: rest },
    ];
  });
}

/** The declaration of a speech-to-text route; `form` is its multipart schema, `ok` its 200. */
export function transcriptionOperation(
  path: string,
  summary: string,
  description: string,
  form: Json,
  ok: Json,
  limits: Limits,
  fields: TProperties = transcriptionFields,
): RouteDeclaration {
  return {
    method: 'post',
    path,
    tags: [taskTag('speech-to-text')],
    summary,
    description,
    secured: true,
    parameters: audioParameters(fields),
    requestBody: {
      required: true,
      description: `The audio file, at most ${megabytes(limits.maxAudioBytes)}.`,
      content: {
        ...Object.fromEntries(AUDIO_BODY_TYPES.map((type) => [type, { schema: { type: 'string', contentMediaType: type } }])),
        'multipart/form-data': { schema: form },
      },
    },
    responses: {
      '200': ok,
      '400': jsonError('Missing model, invalid field, undecodable audio or a model of another task.', [
        'invalid_request',
        'undecodable_audio',
        'wrong_model_task',
      ]),
      ...V1_COMMON_ERRORS,
      '413': jsonError(
        `The audio is larger than ${megabytes(limits.maxAudioBytes)} or longer than ${limits.maxAudioSeconds / 60} minutes; ` +
          `or, past its first ${FREE_SECONDS} s, longer than its size can hold (${MAX_FRAMES_PER_INPUT_BYTE} samples per channel per byte); or too slow to decode.`,
        ['payload_too_large'],
      ),
      '415': jsonError('The Content-Type is neither a supported audio type nor multipart/form-data.', ['unsupported_media_type']),
    },
  };
}

/** The multipart `file` part, as a form schema property. */
export const fileField = Type.String({ description: 'The audio file (MP3, WAV, FLAC, Ogg).', contentMediaType: 'application/octet-stream' });
