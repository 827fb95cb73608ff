/**
 * SPEC speech to text: POST /v1/transcriptions and POST /v1/completions (the SPEC names both
 * paths for one operation; they behave identically). Answers
 * `{id, object: "transcript", created, model, transcript}`.
 */
import { randomUUID } from 'node:crypto';
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { V1RouteDeps } from '../v1-router.js';
import { audioUploadReader } from './audio-upload.js';
import { toTranscriptionRequest } from './transcription-request.js';
import { requestSignal } from '../../request-signal.js';

export function transcriptionRoutes(router: Router, { models, limits, admit }: V1RouteDeps): void {
  const readAudioUpload = audioUploadReader(limits.maxAudioBytes);
  const handler = async (ctx: Context) => {
    const upload = await readAudioUpload(ctx);
    const request = toTranscriptionRequest(upload, limits);
    const transcriber = await models.get(request.modelId, 'speech-to-text');
    const result = await transcriber.transcribe(request.audio, { ...request.options, signal: requestSignal(ctx) });
    ctx.body = {
      id: `trsc_${randomUUID().replaceAll('-', '')}`,
      object: 'transcript',
      created: Math.floor(Date.now() / 1000),
      model: request.modelId,
      transcript: result.text,
    };
  };
  router.post('/transcriptions', admit('speech-to-text'), handler);
  router.post('/completions', admit('speech-to-text'), handler);
}
