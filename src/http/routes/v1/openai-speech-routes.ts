/**
 * OpenAI-compatible alias: POST /v1/audio/speech {model, input, voice, response_format, speed}.
 * Same engine and streaming as /v1/text-to-speech; OpenAI formats we do not produce (opus,
 * aac, flac) are rejected with 400 rather than answered in another format.
 */
import type Router from '@koa/router';
import { Type } from '@sinclair/typebox';
import type { Limits } from '../../../config/load-config.js';
import { ValidationError } from '../../../errors.js';
import { jsonBody } from '../../body-parsers.js';
import type { Operation } from '../../operation.js';
import type { V1RouteDeps } from '../v1-router.js';
import { SPEECH_FORMATS, speechOperation, speechRequestFields, toSpeechRequest } from './speech-routes.js';

const OPENAI_ONLY_FORMATS = ['opus', 'aac', 'flac'];

export const openAiSpeechRequest = (limits: Limits) =>
  Type.Object(speechRequestFields(limits, '`mp3`, `wav` or `pcm` (24 kHz 16-bit LE); other OpenAI formats answer 400.', 'Voice name.'), { $id: 'OpenAISpeechRequest' });

export function openaiSpeechRoutes(router: Router, deps: V1RouteDeps): void {
  const parse = deps.validator.compile(openAiSpeechRequest(deps.limits));
  router.post('/audio/speech', deps.admit('text-to-speech'), jsonBody(deps.limits.maxJsonBytes), (ctx) => {
    const format = (ctx.request.body as { response_format?: unknown } | undefined)?.response_format;
    if (typeof format === 'string' && OPENAI_ONLY_FORMATS.includes(format)) {
      throw new ValidationError(`"response_format" ${format} is not supported; use one of: ${SPEECH_FORMATS.join(', ')}`);
    }
    return deps.speak(ctx, toSpeechRequest(parse(ctx.request.body)));
  });
}

export const openAiSpeechOperations = (limits: Limits): Operation[] => [
  speechOperation(
    '/v1/audio/speech',
    'Speak a text (OpenAI form)',
    'OpenAI-compatible alias of POST /v1/text-to-speech. `response_format` values we do not produce (opus, aac, flac) are answered with 400.',
    openAiSpeechRequest(limits),
    limits,
  ),
];
