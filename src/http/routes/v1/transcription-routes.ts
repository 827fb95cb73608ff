import { readFile } from 'node:fs/promises';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { decodeAudio } from '../../../audio/decode-audio.js';
import { UnsupportedMediaTypeError, ValidationError } from '../../../errors.js';
import { multipartBody, readRawBody } from '../../body-parsers.js';
import type { V1Deps } from '../v1-router.js';

/** Media types accepted as a raw body; multipart/form-data is handled separately. */
export const AUDIO_MEDIA_TYPES = [
  'audio/mpeg',
  'audio/mp3',
  'audio/wav',
  'audio/x-wav',
  'audio/wave',
  'audio/flac',
  'audio/x-flac',
  'audio/ogg',
  'audio/opus',
  'application/octet-stream',
];

interface AudioUpload {
  bytes: Uint8Array;
  contentType: string;
  fields: Record<string, string | undefined>;
}

export function transcriptionRoutes(router: Router, deps: V1Deps): void {
  const handler = async (ctx: Context) => {
    const upload = await readUpload(ctx, deps.limits.maxAudioBytes);
    const modelId = upload.fields.model;
    if (!modelId) {
      throw new ValidationError('"model" is required: pass ?model=, an X-Model header, or a multipart "model" field');
    }
    const transcriber = await deps.models.get(modelId, 'speech-to-text');
    const audio = await decodeAudio(upload.bytes, upload.contentType);
    const task = upload.fields.task;
    if (task !== undefined && task !== 'transcribe' && task !== 'translate') {
      throw new ValidationError('"task" must be "transcribe" or "translate"');
    }
    const result = await transcriber.transcribe(audio, { language: upload.fields.language, task });
    ctx.body = {
      id: `trsc_${crypto.randomUUID().replaceAll('-', '')}`,
      object: 'transcript',
      created: Math.floor(Date.now() / 1000),
      model: modelId,
      transcript: result.text,
    };
  };
  // SPEC names both paths for the same operation; they behave identically.
  router.post('/transcriptions', handler);
  router.post('/completions', handler);
}

/** Raw audio body with model in the query or X-Model, or a multipart form with `file` and `model`. */
export async function readUpload(ctx: Context, limitBytes: number): Promise<AudioUpload> {
  const fromRequest = (name: string) =>
    stringParam(ctx.query[name]) ?? (ctx.get(`X-${name[0]!.toUpperCase()}${name.slice(1)}`) || undefined);

  if (ctx.is('multipart/form-data')) {
    await multipartBody(limitBytes)(ctx, async () => {});
    const fields = (ctx.request.body ?? {}) as Record<string, unknown>;
    const file = ctx.request.files?.file;
    const single = Array.isArray(file) ? file[0] : file;
    if (!single) throw new ValidationError('multipart upload must include a "file" part with the audio');
    return {
      bytes: await readFile(single.filepath),
      contentType: single.mimetype ?? 'application/octet-stream',
      fields: {
        model: stringParam(fields.model) ?? fromRequest('model'),
        language: stringParam(fields.language) ?? fromRequest('language'),
        task: stringParam(fields.task) ?? fromRequest('task'),
        response_format: stringParam(fields.response_format) ?? fromRequest('response_format'),
      },
    };
  }

  const contentType = (ctx.get('Content-Type').split(';')[0] ?? '').trim().toLowerCase();
  if (!AUDIO_MEDIA_TYPES.includes(contentType)) {
    throw new UnsupportedMediaTypeError(
      `Content-Type must be audio/mpeg (or another audio type, or multipart/form-data), got ${contentType || 'none'}`,
    );
  }
  return {
    bytes: await readRawBody(ctx.req, limitBytes),
    contentType,
    fields: {
      model: fromRequest('model'),
      language: fromRequest('language'),
      task: fromRequest('task'),
      response_format: fromRequest('response_format'),
    },
  };
}

function stringParam(value: unknown): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' && first.trim() !== '' ? first.trim() : undefined;
}
