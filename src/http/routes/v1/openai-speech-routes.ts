/**
 * OpenAI-compatible alias: POST /v1/audio/speech {model, input, voice, instructions, response_format, speed, stream_format}.
 * Same engine, formats (all of OpenAI's: mp3, opus, aac, flac, wav, pcm) and streaming as
 * /v1/text-to-speech. OpenAI's fields the voices cannot honour are said, not dropped: a custom
 * voice (`{"id": …}`) is refused by name; `instructions` is accepted and has no effect, as with
 * OpenAI's own tts-1 (a Piper or Kokoro voice speaks one way).
 */
import { Type, type Static } from '@sinclair/typebox';
import { LIMIT_SETTINGS, type Limits } from '../../../config/load-config.js';
import { ValidationError } from '../../../errors.js';
import { jsonBody } from '../../body-parsers.js';
import { declareRoute, type DocumentedRouter } from '../../operation.js';
import { Text } from '../../schema-types.js';
import type { V1RouteDeps } from '../v1-router.js';
import { speechOperation, speechRequestFields, toSpeechRequest } from './speech-routes.js';

/** OpenAI's limit on `instructions` (CreateSpeechRequest). */
const MAX_INSTRUCTIONS_CHARACTERS = 4096;

const openAiSpeechRequest = (limits: Limits) => {
  const fields = speechRequestFields(limits, '`mp3`, `opus` (Ogg), `aac` (ADTS), `flac`, `wav` or `pcm` (24 kHz 16-bit LE), as OpenAI.', 'Voice name.');
  return Type.Object(
    {
      ...fields,
      voice: Type.Optional(
        Type.Union([fields.voice, Type.Object({ id: Type.String() }, { additionalProperties: false })], {
          description:
            'A voice name (OpenAI\'s names such as `alloy` are accepted). OpenAI\'s custom voice object (`{"id": "voice_1234"}`) is refused with a 400: this server has no custom voices.',
        }),
      ),
      instructions: Type.Optional(
        Text('Accepted and without effect, as with OpenAI’s tts-1: the voices speak one way.', {
          maxLength: MAX_INSTRUCTIONS_CHARACTERS,
          notBlank: false,
        }),
      ),
    },
    { $id: 'OpenAISpeechRequest' },
  );
};

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
    (ctx) => deps.speak(ctx, toSpeechRequest(withVoiceName(parse(ctx.request.body)))),
  );
}

function withVoiceName({ voice, instructions: _ignored, ...rest }: Static<ReturnType<typeof openAiSpeechRequest>>) {
  if (typeof voice === 'object') {
    throw new ValidationError(
      `"voice" {"id": ${JSON.stringify(voice.id)}}: custom voices are not supported; "voice" must name one of the model's voices (GET /v1/models lists them under "voices"; OpenAI's names such as "alloy" are accepted)`,
      'voice',
    );
  }
  return { ...rest, ...(voice === undefined ? {} : { voice }) };
}
