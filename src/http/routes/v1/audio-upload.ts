/**
 * Reads an audio upload in either form the speech-to-text routes accept:
 * - a raw body with an audio Content-Type (SPEC: audio/mpeg), parameters in the query
 *   string (`?model=`) or headers (`X-Model`, `X-Language`, `X-Task`);
 * - multipart/form-data with a `file` part (or `audio`) and form fields (the OpenAI SDK form).
 * Size limits apply while reading (413); unknown media types are a 415.
 */
import { LIMIT_SETTINGS } from '../../../config/load-config.js';
import type { Context } from 'koa';
import { type AppError, UnsupportedMediaTypeError } from '../../../errors.js';
import { readMultipart, readRawBody, type MultipartLimits } from '../../body-parsers.js';

/** Media types accepted as a raw body. The bytes are sniffed; the type is only a hint. */
const AUDIO_MEDIA_TYPES: readonly string[] = [
  'audio/mpeg',
  'audio/mp3',
  'audio/mpeg3',
  'audio/x-mpeg',
  'audio/wav',
  'audio/x-wav',
  'audio/wave',
  'audio/vnd.wave',
  'audio/flac',
  'audio/x-flac',
  'audio/ogg',
  'audio/opus',
  'audio/vorbis',
  'application/ogg',
  // What MediaRecorder (WebM, MP4) and phone recorders (M4A, ADTS AAC) label their files.
  'audio/webm',
  'video/webm',
  'audio/x-matroska',
  'audio/mp4',
  'audio/m4a',
  'audio/x-m4a',
  'video/mp4',
  'audio/aac',
  'audio/aacp',
  'audio/x-aac',
  'application/octet-stream',
];

const FIELDS = [
  'model',
  'language',
  'task',
  'response_format',
  'stream',
  'vad_filter',
  'min_silence_duration_ms',
  'speech_pad_ms',
  'vad_threshold',
  'timestamp_granularities',
  'include',
  'prompt',
  'initial_prompt',
  'hotwords',
  'temperature',
  'compression_ratio_threshold',
  'log_prob_threshold',
  'no_speech_threshold',
  'condition_on_previous_text',
  'beam_size',
  'best_of',
  'patience',
  'length_penalty',
  // OpenAI's form: read so that each is honoured or refused by name, never silently dropped.
  'languages',
  'keywords',
  'chunking_strategy',
  'known_speaker_names',
  'known_speaker_references',
] as const;
/** Array fields: sent as `name[]` (repeated) by the OpenAI SDKs; every value is kept, comma-joined. */
const ARRAY_FIELDS: ReadonlySet<UploadField> = new Set([
  'timestamp_granularities',
  'include',
  'temperature',
  'languages',
  'keywords',
  'known_speaker_names',
  'known_speaker_references',
]);
/**
 * Object fields: the OpenAI SDKs send `{"type": "server_vad", "threshold": 0.6}` as
 * `name[type]`, `name[threshold]` parts; they are gathered into the JSON text of that object.
 * A plain `name` field (`auto`, or JSON) is kept as sent.
 */
const OBJECT_FIELDS: ReadonlySet<UploadField> = new Set(['chunking_strategy']);
/** The OpenAI form has a handful of fields (model, language, prompt, temperature, timestamp_granularities[] …), the decoding options a few more. */
export const MAX_FORM_FIELDS = 40;
/** A prompt is the longest field OpenAI clients send (224 tokens). */
export const MAX_FIELD_BYTES = 16 * 1024;
type UploadField = (typeof FIELDS)[number];
/**
 * The header that may carry a field: X-Model, X-Language, X-Task, X-Vad-Threshold. The reader
 * asks for this name and the routes document it, so the two cannot differ.
 */
export function fieldHeader(name: string): string {
  return `X-${name
    .split('_')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('-')}`;
}
const FIELD_HEADERS = Object.fromEntries(FIELDS.map((name) => [name, fieldHeader(name)])) as Record<UploadField, string>;

export interface AudioUpload {
  bytes: Uint8Array;
  contentType: string;
  fields: Partial<Record<UploadField, string>>;
}

type AudioUploadReader = (ctx: Context) => Promise<AudioUpload>;

/**
 * Reads uploads of at most `limitBytes`, the server's maxAudioBytes (MAX_AUDIO_MB, named in its 413).
 * `refuseField`: the error of a field the route refuses whatever its value (a feature the server
 * does not have), raised as soon as its name is read: so a long value of it (a speaker sample as a
 * data URL) is refused for what it asks, not as a field over MAX_FIELD_BYTES.
 */
export function audioUploadReader(limitBytes: number, refuseField?: (name: string) => AppError | undefined): AudioUploadReader {
  // `audio`: what a client following the SPEC's words ("audio file (binary)") may name the part.
  const multipart: MultipartLimits = {
    fileFields: ['file', 'audio'],
    maxFileBytes: limitBytes,
    maxFileSetting: LIMIT_SETTINGS.maxAudioBytes,
    maxFields: MAX_FORM_FIELDS,
    maxFieldBytes: MAX_FIELD_BYTES,
    ...(refuseField ? { refuseField: (name: string) => refuseField(formFieldName(name)) } : {}),
  };
  return (ctx) => (ctx.is('multipart/form-data') ? readMultipartUpload(ctx, multipart) : readRaw(ctx, limitBytes));
}

async function readRaw(ctx: Context, limitBytes: number): Promise<AudioUpload> {
  const contentType = (ctx.get('Content-Type').split(';')[0] ?? '').trim().toLowerCase();
  if (!AUDIO_MEDIA_TYPES.includes(contentType)) {
    throw new UnsupportedMediaTypeError(
      `Content-Type must be audio/mpeg (or audio/wav, audio/flac, audio/ogg, audio/webm, audio/mp4, audio/aac, or multipart/form-data with a "file" part); got ${contentType || 'none'}`,
    );
  }
  const bytes = await readRawBody(ctx.req, limitBytes, LIMIT_SETTINGS.maxAudioBytes);
  return { bytes, contentType, fields: fieldsFrom(ctx, {}) };
}

async function readMultipartUpload(ctx: Context, limits: MultipartLimits): Promise<AudioUpload> {
  const { file, fields } = await readMultipart(ctx.req, limits);
  return { bytes: file.bytes, contentType: file.contentType, fields: fieldsFrom(ctx, fields) };
}

/** Form fields win over the query string, which wins over X- headers. */
function fieldsFrom(ctx: Context, form: Record<string, unknown>): AudioUpload['fields'] {
  const fields: AudioUpload['fields'] = {};
  for (const name of FIELDS) {
    const value = OBJECT_FIELDS.has(name)
      ? (stringParam(form[name]) ?? objectParam(form, name) ?? stringParam(ctx.query[name]) ?? stringParam(ctx.get(FIELD_HEADERS[name])))
      : ARRAY_FIELDS.has(name)
        ? (listParam(form[`${name}[]`] ?? form[name]) ?? listParam(ctx.query[`${name}[]`] ?? ctx.query[name]) ?? stringParam(ctx.get(FIELD_HEADERS[name])))
        : (stringParam(form[name]) ?? stringParam(ctx.query[name]) ?? stringParam(ctx.get(FIELD_HEADERS[name])));
    if (value !== undefined) fields[name] = value;
  }
  return fields;
}

/** `chunking_strategy[type]`, `chunking_strategy[threshold]` … → `{"type": …, "threshold": …}` (values stay text). */
function objectParam(form: Record<string, unknown>, name: string): string | undefined {
  const prefix = `${name}[`;
  const entries = Object.entries(form)
    .filter(([key]) => key.startsWith(prefix) && key.endsWith(']'))
    .map(([key, value]) => [key.slice(prefix.length, -1), stringParam(value)]);
  return entries.length > 0 ? JSON.stringify(Object.fromEntries(entries)) : undefined;
}

/** The field a form part belongs to: `known_speaker_names[]` and `chunking_strategy[type]` are parts of their field. */
function formFieldName(part: string): string {
  const bracket = part.indexOf('[');
  return bracket > 0 ? part.slice(0, bracket) : part;
}

/** Every value of a repeated parameter, comma-joined. */
function listParam(value: unknown): string | undefined {
  const values = (Array.isArray(value) ? value : [value]).map(stringParam).filter((item) => item !== undefined);
  return values.length > 0 ? values.join(',') : undefined;
}

function stringParam(value: unknown): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' && first.trim() !== '' ? first.trim() : undefined;
}
