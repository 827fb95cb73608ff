/**
 * OpenAI-compatible POST /v1/audio/transcriptions and /v1/audio/translations, so the official SDKs work against us: multipart `file` + `model` (+ `language`, `response_format`, `stream`,
 * `timestamp_granularities[]`, `prompt`, `temperature`, `include[]`, and the decoding options of decoding-fields.ts). verbose_json is shaped as OpenAI's: segments with
 * their decoding details, `words` with the word granularity; json and verbose_json carry whisper-1's `usage` (seconds of audio),
 * json the tokens' `logprobs` with `include[]=logprobs`.
 *
 * Granularities are read as speaches reads them, where it and OpenAI differ (speaches' own test
 * suite, api_timestamp_granularities_test.py, expects it): `word` with another format than
 * verbose_json is accepted and has no effect (OpenAI answers 400), and verbose_json always has
 * its segments, `word` alone too (OpenAI then leaves them out). Clients of either read the answer.
 */
import { Type } from '@sinclair/typebox';
import type { Context } from 'koa';
import type { Transcript, TranscriptSegment } from '../../../inference/types.js';
import { declareRoute, type DocumentedRouter } from '../../operation.js';
import { StringEnum } from '../../schema-types.js';
import type { V1RouteDeps } from '../v1-router.js';
import { audioUploadReader } from './audio-upload.js';
import { toSrt, toWebVtt } from './subtitle-formats.js';
import { fileField, toTranscriptionRequest, transcriptionFields, transcriptionFieldsParser, transcriptionOperation } from './transcription-request.js';
import { requestSignal } from '../../request-signal.js';
import { ValidationError } from '../../../errors.js';
import { respondWithTranscriptEvents, TokenLogprob, transcriptEventStream } from './transcription-stream.js';
import { openAiFieldsReader, openAiFormFields, openAiFormParts, refusedFormField, refuseUnsupported } from './openai-transcription-fields.js';

const RESPONSE_FORMATS = ['json', 'text', 'verbose_json', 'srt', 'vtt'] as const;
type ResponseFormat = (typeof RESPONSE_FORMATS)[number];

const GRANULARITIES = ['segment', 'word'] as const;
type Granularity = (typeof GRANULARITIES)[number];

const INCLUDES = ['logprobs'] as const;

const openAiFields = {
  ...transcriptionFields,
  ...openAiFormFields,
  response_format: Type.Optional(StringEnum(RESPONSE_FORMATS, { description: 'Answer format.', default: 'json' })),
  timestamp_granularities: Type.Optional(Type.String({ description: 'The `timestamp_granularities[]` values, comma-joined (read by the route).' })),
  include: Type.Optional(Type.String({ description: 'The `include[]` values, comma-joined (read by the route).' })),
};
const OpenAITranscriptionForm = Type.Object(
  {
    file: fileField,
    ...transcriptionFields,
    response_format: openAiFields.response_format,
    ...openAiFormParts,
    'timestamp_granularities[]': Type.Optional(
      Type.Array(StringEnum(GRANULARITIES), {
        description:
          'With `verbose_json`: `segment` (the default) and/or `word` (word timestamps by cross-attention alignment; the array form, repeated, as the OpenAI SDKs send it). Accepted and without effect with the other formats, as speaches does.',
      }),
    ),
    'include[]': Type.Optional(
      Type.Array(StringEnum(INCLUDES), {
        description:
          '`logprobs`: the answer (`json` only) carries `logprobs`, each text token of the transcript with its log probability and UTF-8 bytes, as OpenAI shapes them; with `stream`, each `transcript.text.delta` carries its tokens and `transcript.text.done` all of them.',
      }),
    ),
  },
  { $id: 'OpenAITranscriptionForm' },
);
const DurationUsage = Type.Object(
  {
    type: Type.Literal('duration'),
    seconds: Type.Integer({ description: 'Seconds of input audio, rounded up (as whisper-1 reports them).' }),
  },
  { $id: 'DurationUsage', description: "What the request used, as OpenAI's whisper-1 reports it." },
);
const OpenAITranscription = Type.Object(
  {
    text: Type.String(),
    logprobs: Type.Optional(Type.Array(TokenLogprob, { description: 'With `include[]=logprobs`: the text tokens of the transcript, in order.' })),
    usage: DurationUsage,
  },
  { $id: 'OpenAITranscription' },
);
const TranscriptWord = Type.Object(
  {
    word: Type.String({ description: 'The word, without surrounding spaces; punctuation stays attached.' }),
    start: Type.Number({ description: 'Seconds from the start of the audio.' }),
    end: Type.Number({ description: 'Seconds from the start of the audio.' }),
  },
  { $id: 'TranscriptWord' },
);
const TranscriptSegmentSchema = Type.Object(
  {
    id: Type.Integer(),
    seek: Type.Integer({ description: "Mel frame (10 ms) where the segment's 30-s decoding window starts." }),
    start: Type.Number({ description: 'Seconds from the start of the audio.' }),
    end: Type.Number({ description: 'Seconds from the start of the audio.' }),
    text: Type.String(),
    tokens: Type.Array(Type.Integer(), { description: 'Token ids, timestamp tokens included.' }),
    temperature: Type.Number({ description: "Sampling temperature of the window's accepted decode." }),
    avg_logprob: Type.Number({ description: 'Average log probability per token of the window.' }),
    compression_ratio: Type.Number({ description: "gzip compression ratio of the window's text." }),
    no_speech_prob: Type.Number({ description: "Probability of `<|nospeech|>` at the window's start." }),
  },
  { $id: 'TranscriptSegment' },
);
const OpenAIVerboseTranscription = Type.Object(
  {
    task: Type.String({ description: '`transcribe` or `translate`.' }),
    language: Type.String({ description: 'Spoken language, named as OpenAI names it (`english`).' }),
    duration: Type.Number({ description: 'Seconds of audio.' }),
    text: Type.String(),
    segments: Type.Array(TranscriptSegmentSchema, { description: 'Always (also with the `word` granularity alone, as speaches answers).' }),
    words: Type.Optional(Type.Array(TranscriptWord, { description: 'With the `word` granularity.' })),
    usage: DurationUsage,
  },
  { $id: 'OpenAIVerboseTranscription' },
);

export function openaiAudioRoutes(router: DocumentedRouter, { models, limits, admit, validator }: V1RouteDeps): void {
  const readAudioUpload = audioUploadReader(limits.maxAudioBytes, refusedFormField);
  const parseFields = transcriptionFieldsParser(validator, openAiFields);
  const foldOpenAiFields = openAiFieldsReader(validator);
  const handler = (task: 'transcribe' | 'translate') => async (ctx: Context) => {
    const upload = await readAudioUpload(ctx);
    refuseUnsupported(upload.fields);
    // /audio/translations always translates into English, whatever `task` says.
    const fields = foldOpenAiFields(parseFields(task === 'translate' ? { ...upload, fields: { ...upload.fields, task } } : upload));
    const format = fields.response_format ?? 'json';
    const granularities = parseGranularities(fields.timestamp_granularities);
    const logprobs = parseIncludes(fields.include, format);
    // Granularities apply to verbose_json only; srt and vtt need segments, and verbose_json
    // always carries them (as speaches).
    const words = format === 'verbose_json' && granularities.has('word');
    const segments = format === 'srt' || format === 'vtt' || format === 'verbose_json';
    const request = toTranscriptionRequest(upload, fields, limits, { segments, words });
    if (logprobs) request.options.decoding = { ...request.options.decoding, logprobs };
    // With stream=true the events are the same whatever the format: text deltas, then the text
    // (OpenAI's gpt-4o-transcribe streams json and text; speaches streams every format).
    const transcriber = await models.get(request.modelId, 'speech-to-text');
    if (request.stream) return respondWithTranscriptEvents(ctx, transcriber, request.audio, request.options);
    const transcript = await transcriber.transcribe(request.audio, { ...request.options, signal: requestSignal(ctx) });
    respond(ctx, format, transcript, { task: request.options.task ?? 'transcribe', granularities });
  };
  const ok = {
    description:
      'By `response_format`: `json` (default) `{text}`; `verbose_json` adds task, language, duration, segments (with their tokens, temperature, avg_logprob, compression_ratio and no_speech_prob) and, with `timestamp_granularities[]` `word`, words; `text` the plain transcript; `srt` / `vtt` subtitles. With `stream=true` (json or text): `text/event-stream` of `transcript.text.delta` events as segments are decoded, then `transcript.text.done`.',
    content: {
      'application/json': { schema: { oneOf: [OpenAITranscription, OpenAIVerboseTranscription] } },
      'text/plain': { schema: { type: 'string' } },
      'text/vtt': { schema: { type: 'string' } },
      ...transcriptEventStream,
    },
  };
  declareRoute(
    router,
    transcriptionOperation(
      '/audio/transcriptions',
      'Transcribe audio (OpenAI form)',
      'OpenAI-compatible, for the official SDKs: multipart/form-data with `file` and `model`; `timestamp_granularities[]` `word` adds word timestamps to `verbose_json`; `include[]` `logprobs` adds token log probabilities to `json`; `prompt`, `temperature` and the other decoding options steer Whisper (docs/api.md, "Decoding options"). A raw audio body with `?model=` works too.',
      OpenAITranscriptionForm,
      ok,
      limits,
    ),
    admit('speech-to-text'),
    handler('transcribe'),
  );
  declareRoute(
    router,
    transcriptionOperation(
      '/audio/translations',
      'Translate speech into English text (OpenAI form)',
      'Like POST /v1/audio/transcriptions, but always with task `translate`: the transcript is in English. Needs a multilingual model; an English-only model answers 400.',
      OpenAITranscriptionForm,
      ok,
      limits,
    ),
    admit('speech-to-text'),
    handler('translate'),
  );
}

/** `timestamp_granularities[]`, comma-joined by the upload reader; `segment` when none is given. */
function parseGranularities(value: string | undefined): Set<Granularity> {
  if (value === undefined) return new Set(['segment']);
  const granularities = new Set<Granularity>();
  for (const item of value.split(',')) {
    const granularity = item.trim();
    if (!(GRANULARITIES as readonly string[]).includes(granularity)) {
      throw new ValidationError(`"timestamp_granularities[]" values must be "segment" or "word"; got "${granularity}"`, 'timestamp_granularities');
    }
    granularities.add(granularity as Granularity);
  }
  return granularities;
}

/**
 * `include[]`, comma-joined by the upload reader: whether to report log probabilities. OpenAI
 * gives them with `json` only, in the answer or, with `stream`, in each event.
 */
function parseIncludes(value: string | undefined, format: ResponseFormat): boolean {
  if (value === undefined) return false;
  for (const item of value.split(',')) {
    if (!(INCLUDES as readonly string[]).includes(item.trim()))
      throw new ValidationError(`"include[]" values must be "logprobs"; got "${item.trim()}"`, 'include');
  }
  if (format !== 'json') throw new ValidationError(`"include[]" logprobs needs "response_format" json; got "${format}"`, 'include');
  return true;
}

interface VerboseContext {
  task: string;
  granularities: ReadonlySet<Granularity>;
}

function respond(ctx: Context, format: ResponseFormat, transcript: Transcript, context: VerboseContext): void {
  switch (format) {
    case 'json':
      ctx.body = { text: transcript.text, ...(transcript.logprobs ? { logprobs: transcript.logprobs } : {}), usage: durationUsage(transcript) };
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
      ctx.body = verboseJson(transcript, context);
  }
}

/** OpenAI's verbose_json: its segments, and words with the word granularity. */
function verboseJson(transcript: Transcript, { task, granularities }: VerboseContext) {
  const segments = transcript.segments ?? [];
  return {
    task,
    language: transcript.languageName ?? transcript.language ?? 'english',
    duration: transcript.duration,
    text: transcript.text,
    segments: segments.map(openAiSegment),
    // OpenAI's words carry no spaces; ours keep the punctuation merged into them, as openai/whisper.
    ...(granularities.has('word')
      ? { words: segments.flatMap((segment) => (segment.words ?? []).map((word) => ({ word: word.word.trim(), start: word.start, end: word.end }))) }
      : {}),
    usage: durationUsage(transcript),
  };
}

/** whisper-1's usage: audio seconds, rounded up. */
function durationUsage(transcript: Transcript) {
  return { type: 'duration' as const, seconds: Math.ceil(transcript.duration) };
}

/** A model without our window decoder (no timestamp tokens) has no details: OpenAI's neutral values stand in. */
function openAiSegment(segment: TranscriptSegment, id: number) {
  const details = segment.details;
  return {
    id,
    seek: details?.seek ?? 0,
    start: segment.start,
    end: segment.end,
    text: segment.text,
    tokens: details?.tokens ?? [],
    temperature: details?.temperature ?? 0,
    avg_logprob: details?.avgLogprob ?? 0,
    compression_ratio: details?.compressionRatio ?? 0,
    no_speech_prob: details?.noSpeechProb ?? 0,
  };
}
