/**
 * OpenAI-compatible alias: POST /v1/audio/speech {model, input, voice, response_format, speed}.
 * Same engine and streaming as /v1/text-to-speech; OpenAI formats we do not produce (opus,
 * aac, flac, pcm) are rejected with 400 rather than answered in another format.
 */
import type Router from '@koa/router';
import { ValidationError } from '../../../errors.js';
import { jsonBody } from '../../body-parsers.js';
import { requireObject } from '../../validation.js';
import type { V1RouteDeps } from '../v1-router.js';
import { parseSpeechRequest, SPEECH_FORMATS } from './speech-routes.js';

const OPENAI_ONLY_FORMATS = ['opus', 'aac', 'flac', 'pcm'];

export function openaiSpeechRoutes(router: Router, deps: V1RouteDeps): void {
  router.post('/audio/speech', deps.admit('text-to-speech'), jsonBody(deps.limits.maxJsonBytes), (ctx) => {
    const body = requireObject(ctx.request.body);
    const format = body.response_format;
    if (typeof format === 'string' && OPENAI_ONLY_FORMATS.includes(format)) {
      throw new ValidationError(`"response_format" ${format} is not supported; use one of: ${SPEECH_FORMATS.join(', ')}`);
    }
    return deps.speak(ctx, parseSpeechRequest(body, deps.limits));
  });
}
