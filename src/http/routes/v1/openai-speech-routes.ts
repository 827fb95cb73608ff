/**
 * OpenAI-compatible alias: POST /v1/audio/speech {model, input, voice, response_format, speed}.
 * Same engine, formats (all of OpenAI's: mp3, opus, aac, flac, wav, pcm) and streaming as
 * /v1/text-to-speech.
 */
import { Type } from '@sinclair/typebox';
import { LIMIT_SETTINGS, type Limits } from '../../../config/load-config.js';
import { jsonBody } from '../../body-parsers.js';
import { declareRoute, type DocumentedRouter } from '../../operation.js';
import type { V1RouteDeps } from '../v1-router.js';
import { speechOperation, speechRequestFields, toSpeechRequest } from './speech-routes.js';

const openAiSpeechRequest = (limits: Limits) =>
  Type.Object(speechRequestFields(limits, '`mp3`, `opus` (Ogg), `aac` (ADTS), `flac`, `wav` or `pcm` (24 kHz 16-bit LE), as OpenAI.', 'Voice name.'), {
    $id: 'OpenAISpeechRequest',
  });

export function openaiSpeechRoutes(router: DocumentedRouter, deps: V1RouteDeps): void {
  const request = openAiSpeechRequest(deps.limits);
  const parse = deps.validator.compile(request);
  declareRoute(
    router,
    speechOperation(
      '/audio/speech',
      'Speak a text (OpenAI form)',
      'OpenAI-compatible alias of POST /v1/text-to-speech, with the same formats.',
      request,
      deps.limits,
    ),
    deps.admit('text-to-speech'),
    jsonBody(deps.limits.maxJsonBytes, LIMIT_SETTINGS.maxJsonBytes),
    (ctx) => deps.speak(ctx, toSpeechRequest(parse(ctx.request.body))),
  );
}
