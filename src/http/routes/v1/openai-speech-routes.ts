/**
 * OpenAI-compatible alias: POST /v1/audio/speech {model, input, voice, response_format, speed}.
 * Same engine, formats (all of OpenAI's: mp3, opus, aac, flac, wav, pcm) and streaming as
 * /v1/text-to-speech.
 */
import type Router from '@koa/router';
import { Type } from '@sinclair/typebox';
import type { Limits } from '../../../config/load-config.js';
import { jsonBody } from '../../body-parsers.js';
import type { Operation } from '../../operation.js';
import type { V1RouteDeps } from '../v1-router.js';
import { speechOperation, speechRequestFields, toSpeechRequest } from './speech-routes.js';

export const openAiSpeechRequest = (limits: Limits) =>
  Type.Object(speechRequestFields(limits, '`mp3`, `opus` (Ogg), `aac` (ADTS), `flac`, `wav` or `pcm` (24 kHz 16-bit LE), as OpenAI.', 'Voice name.'), { $id: 'OpenAISpeechRequest' });

export function openaiSpeechRoutes(router: Router, deps: V1RouteDeps): void {
  const parse = deps.validator.compile(openAiSpeechRequest(deps.limits));
  router.post('/audio/speech', deps.admit('text-to-speech'), jsonBody(deps.limits.maxJsonBytes), (ctx) => deps.speak(ctx, toSpeechRequest(parse(ctx.request.body))));
}

export const openAiSpeechOperations = (limits: Limits): Operation[] => [
  speechOperation(
    '/v1/audio/speech',
    'Speak a text (OpenAI form)',
    'OpenAI-compatible alias of POST /v1/text-to-speech, with the same formats.',
    openAiSpeechRequest(limits),
    limits,
  ),
];
