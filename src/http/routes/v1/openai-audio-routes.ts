/**
 * OpenAI-compatible POST /v1/audio/transcriptions and /v1/audio/translations, so the official SDKs work against us: multipart `file` + `model` (+ `language`, `response_format`, `stream`);
 * `prompt`, `temperature` and `timestamp_granularities[]` are accepted and ignored.
 */
import type Router from '@koa/router';
import { Type } from '@sinclair/typebox';
import type { Context } from 'koa';
import type { Limits } from '../../../config/load-config.js';
import type { Transcript } from '../../../inference/types.js';
import type { Operation } from '../../operation.js';
import { StringEnum } from '../../schema-types.js';
import type { V1RouteDeps } from '../v1-router.js';
import { audioUploadReader } from './audio-upload.js';
import { toSrt, toWebVtt } from './subtitle-formats.js';
import { fileField, toTranscriptionRequest, transcriptionFields, transcriptionFieldsParser, transcriptionOperation } from './transcription-request.js';
import { requestSignal } from '../../request-signal.js';
import { ValidationError } from '../../../errors.js';
import { respondWithTranscriptEvents, transcriptEventStream } from './transcription-stream.js';

export const RESPONSE_FORMATS = ['json', 'text', 'verbose_json', 'srt', 'vtt'] as const;
type ResponseFormat = (typeof RESPONSE_FORMATS)[number];

const openAiFields = {
  ...transcriptionFields,
  response_format: Type.Optional(StringEnum(RESPONSE_FORMATS, { description: 'Answer format.', default: 'json' })),
};
const OpenAITranscriptionForm = Type.Object(
  {
    file: fileField,
    ...openAiFields,
    prompt: Type.Optional(Type.String({ description: 'Accepted for compatibility; ignored.' })),
    temperature: Type.Optional(Type.Number({ description: 'Accepted for compatibility; ignored.' })),
  },
  { $id: 'OpenAITranscriptionForm' },
);
const OpenAITranscription = Type.Object({ text: Type.String() }, { $id: 'OpenAITranscription' });
const TranscriptSegment = Type.Object(
  {
    id: Type.Integer(),
    seek: Type.Optional(Type.Integer()),
    start: Type.Number({ description: 'Seconds from the start of the audio.' }),
    end: Type.Number({ description: 'Seconds from the start of the audio.' }),
    text: Type.String(),
  },
  { $id: 'TranscriptSegment' },
);
const OpenAIVerboseTranscription = Type.Object(
  {
    task: Type.String({ description: '`transcribe` or `translate`.' }),
    language: Type.String({ description: 'Spoken language code.' }),
    duration: Type.Number({ description: 'Seconds of audio.' }),
    text: Type.String(),
    segments: Type.Array(TranscriptSegment),
  },
  { $id: 'OpenAIVerboseTranscription' },
);

export function openaiAudioRoutes(router: Router, { models, limits, admit, validator }: V1RouteDeps): void {
  const readAudioUpload = audioUploadReader(limits.maxAudioBytes);
  const parseFields = transcriptionFieldsParser(validator, openAiFields);
  const handler = (task: 'transcribe' | 'translate') => async (ctx: Context) => {
    const upload = await readAudioUpload(ctx);
    // /audio/translations always translates into English, whatever `task` says.
    const fields = parseFields(task === 'translate' ? { ...upload, fields: { ...upload.fields, task } } : upload);
    const format = fields.response_format ?? 'json';
    const request = toTranscriptionRequest(upload, fields, limits, { segments: format !== 'json' && format !== 'text' });
    if (request.stream && format !== 'json' && format !== 'text') {
      throw new ValidationError(`"stream" works with "response_format" json or text (events carry text only); got "${format}"`);
    }
    const transcriber = await models.get(request.modelId, 'speech-to-text');
    if (request.stream) return respondWithTranscriptEvents(ctx, transcriber, request.audio, request.options);
    const transcript = await transcriber.transcribe(request.audio, { ...request.options, signal: requestSignal(ctx) });
    respond(ctx, format, transcript, request.options.task ?? 'transcribe');
  };
  router.post('/audio/transcriptions', admit('speech-to-text'), handler('transcribe'));
  router.post('/audio/translations', admit('speech-to-text'), handler('translate'));
}

export const openAiAudioOperations = (limits: Limits): Operation[] => {
  const ok = {
    description:
      'By `response_format`: `json` (default) `{text}`; `verbose_json` adds task, language, duration and segments; `text` the plain transcript; `srt` / `vtt` subtitles. With `stream=true` (json or text): `text/event-stream` of `transcript.text.delta` events as segments are decoded, then `transcript.text.done`.',
    content: {
      'application/json': { schema: { oneOf: [OpenAITranscription, OpenAIVerboseTranscription] } },
      'text/plain': { schema: { type: 'string' } },
      'text/vtt': { schema: { type: 'string' } },
      ...transcriptEventStream,
    },
  };
  return [
    transcriptionOperation(
      '/v1/audio/transcriptions',
      'Transcribe audio (OpenAI form)',
      'OpenAI-compatible, for the official SDKs: multipart/form-data with `file` and `model`; `prompt`, `temperature` and `timestamp_granularities[]` are accepted and ignored. A raw audio body with `?model=` works too.',
      OpenAITranscriptionForm,
      ok,
      limits,
    ),
    transcriptionOperation(
      '/v1/audio/translations',
      'Translate speech into English text (OpenAI form)',
      'Like POST /v1/audio/transcriptions, but always with task `translate`: the transcript is in English. Needs a multilingual model; an English-only model answers 400.',
      OpenAITranscriptionForm,
      ok,
      limits,
    ),
  ];
};

function respond(ctx: Context, format: ResponseFormat, transcript: Transcript, task: string): void {
  switch (format) {
    case 'json':
      ctx.body = { text: transcript.text };
      return;
    case 'text':
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = `${transcript.text}\n`;
      return;
    case 'srt':
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = toSrt(transcript.segments ?? []);
      return;
    case 'vtt':
      ctx.type = 'text/vtt; charset=utf-8';
      ctx.body = toWebVtt(transcript.segments ?? []);
      return;
    case 'verbose_json':
      ctx.body = verboseJson(transcript, task);
  }
}

/** OpenAI's verbose_json, limited to what Whisper here really produces (no log-probs). */
function verboseJson(transcript: Transcript, task: string) {
  return {
    task,
    language: transcript.language ?? 'en',
    duration: transcript.duration,
    text: transcript.text,
    segments: (transcript.segments ?? []).map((segment, id) => ({ id, seek: 0, start: segment.start, end: segment.end, text: segment.text })),
  };
}
