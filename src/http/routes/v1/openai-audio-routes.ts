/**
 * OpenAI-compatible POST /v1/audio/transcriptions and /v1/audio/translations, so the official SDKs work against us: multipart `file` + `model` (+ `language`, `response_format`);
 * `prompt`, `temperature` and `timestamp_granularities[]` are accepted and ignored.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Transcript } from '../../../inference/types.js';
import { optionalEnum } from '../../validation.js';
import type { V1RouteDeps } from '../v1-router.js';
import { audioUploadReader } from './audio-upload.js';
import { toSrt, toWebVtt } from './subtitle-formats.js';
import { toTranscriptionRequest } from './transcription-request.js';
import { requestSignal } from '../../request-signal.js';

export const RESPONSE_FORMATS = ['json', 'text', 'verbose_json', 'srt', 'vtt'] as const;
type ResponseFormat = (typeof RESPONSE_FORMATS)[number];

export function openaiAudioRoutes(router: Router, { models, limits, admit }: V1RouteDeps): void {
  const readAudioUpload = audioUploadReader(limits.maxAudioBytes);
  const handler = (task: 'transcribe' | 'translate') => async (ctx: Context) => {
    const upload = await readAudioUpload(ctx);
    const format = optionalEnum(upload.fields, 'response_format', RESPONSE_FORMATS) ?? 'json';
    // /audio/translations always translates into English, whatever `task` says.
    const fields = task === 'translate' ? { ...upload, fields: { ...upload.fields, task } } : upload;
    const request = toTranscriptionRequest(fields, limits, { segments: format !== 'json' && format !== 'text' });
    const transcriber = await models.get(request.modelId, 'speech-to-text');
    const transcript = await transcriber.transcribe(request.audio, { ...request.options, signal: requestSignal(ctx) });
    respond(ctx, format, transcript, request.options.task ?? 'transcribe');
  };
  router.post('/audio/transcriptions', admit('speech-to-text'), handler('transcribe'));
  router.post('/audio/translations', admit('speech-to-text'), handler('translate'));
}

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
