import type Router from '@koa/router';
import { jsonBody } from '../../body-parsers.js';
import { requireObject, requireString } from '../../validation.js';
import type { V1Deps } from '../v1-router.js';

// TODO(speech issue): streaming MP3 encoding, voice/speed/response_format, /audio/speech alias.
export function speechRoutes(router: Router, { models, limits }: V1Deps): void {
  router.post('/text-to-speech', jsonBody(limits.maxJsonBytes), async (ctx) => {
    const body = requireObject(ctx.request.body);
    const modelId = requireString(body, 'model');
    requireString(body, 'input', { maxLength: limits.maxSpeechInputChars, tooLargeStatus: 413 });
    await models.get(modelId, 'text-to-speech');
    throw new Error('text-to-speech encoding is not implemented yet');
  });
}
