/**
 * Reads an audio upload in either form the speech-to-text routes accept:
 * - a raw body with an audio Content-Type (SPEC: audio/mpeg), parameters in the query
 *   string (`?model=`) or headers (`X-Model`, `X-Language`, `X-Task`);
 * - multipart/form-data with a `file` part and form fields (the OpenAI SDK form).
 * Size limits apply while reading (413); unknown media types are a 415.
 */
import { readFile, rm } from 'node:fs/promises';
import type { Context } from 'koa';
import { UnsupportedMediaTypeError, ValidationError } from '../../../errors.js';
import { multipartBody, readRawBody } from '../../body-parsers.js';

/** Media types accepted as a raw body. The bytes are sniffed; the type is only a hint. */
export const AUDIO_MEDIA_TYPES: readonly string[] = [
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
  'application/octet-stream',
];

const FIELDS = ['model', 'language', 'task', 'response_format'] as const;
export type UploadField = (typeof FIELDS)[number];

export interface AudioUpload {
  bytes: Uint8Array;
  contentType: string;
  fields: Partial<Record<UploadField, string>>;
}

export async function readAudioUpload(ctx: Context, limitBytes: number): Promise<AudioUpload> {
  if (ctx.is('multipart/form-data')) return readMultipart(ctx, limitBytes);

  const contentType = (ctx.get('Content-Type').split(';')[0] ?? '').trim().toLowerCase();
  if (!AUDIO_MEDIA_TYPES.includes(contentType)) {
    throw new UnsupportedMediaTypeError(
      `Content-Type must be audio/mpeg (or audio/wav, audio/flac, audio/ogg, or multipart/form-data with a "file" part); got ${contentType || 'none'}`,
    );
  }
  const bytes = await readRawBody(ctx.req, limitBytes);
  return { bytes, contentType, fields: fieldsFrom(ctx, {}) };
}

async function readMultipart(ctx: Context, limitBytes: number): Promise<AudioUpload> {
  await multipartBody(limitBytes)(ctx, async () => {});
  const files = ctx.request.files ?? {};
  const tempFiles = Object.values(files).flat();
  try {
    const file = files.file;
    const single = Array.isArray(file) ? file[0] : file;
    if (!single) throw new ValidationError('multipart upload must include a "file" part with the audio');
    return {
      bytes: await readFile(single.filepath),
      contentType: (single.mimetype ?? 'application/octet-stream').toLowerCase(),
      fields: fieldsFrom(ctx, (ctx.request.body ?? {}) as Record<string, unknown>),
    };
  } finally {
    // formidable leaves uploads in the temp folder; the bytes are in memory now.
    await Promise.all(tempFiles.map((temp) => rm(temp.filepath, { force: true })));
  }
}

/** Form fields win over the query string, which wins over X- headers. */
function fieldsFrom(ctx: Context, form: Record<string, unknown>): AudioUpload['fields'] {
  const fields: AudioUpload['fields'] = {};
  for (const name of FIELDS) {
    const header = ctx.get(`X-${name.split('_').map((part) => part[0]!.toUpperCase() + part.slice(1)).join('-')}`);
    const value = stringParam(form[name]) ?? stringParam(ctx.query[name]) ?? stringParam(header);
    if (value !== undefined) fields[name] = value;
  }
  return fields;
}

function stringParam(value: unknown): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' && first.trim() !== '' ? first.trim() : undefined;
}
