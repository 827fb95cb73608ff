import type Router from '@koa/router';
import { ValidationError } from '../../../errors.js';
import { jsonBody } from '../../body-parsers.js';
import { optionalString, requireObject, requireString } from '../../validation.js';
import type { V1Deps } from '../v1-router.js';

const LANGUAGE_CODE = /^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/;

export function translationRoutes(router: Router, { models, limits }: V1Deps): void {
  router.post('/engines/:model/translate', jsonBody(limits.maxJsonBytes), async (ctx) => {
    const body = requireObject(ctx.request.body);
    const modelId = requireString(body, 'model');
    if (modelId !== ctx.params.model) {
      throw new ValidationError(`"model" in the body (${modelId}) must equal the model in the path (${ctx.params.model})`);
    }
    const text = requireString(body, 'text', { maxLength: limits.maxTranslationChars });
    const targetLanguage = languageCode(requireString(body, 'target_language'), 'target_language');
    const source = optionalString(body, 'source_language');
    const sourceLanguage = source === undefined ? undefined : languageCode(source, 'source_language');

    const translator = await models.get(modelId, 'translation');
    if (!translator.targetLanguages.includes(targetLanguage)) {
      throw new ValidationError(
        `"target_language" ${targetLanguage} is not supported by ${modelId}; supported: ${translator.targetLanguages.join(', ')}`,
      );
    }
    ctx.body = { translation: await translator.translate(text, { targetLanguage, sourceLanguage }) };
  });
}

function languageCode(value: string, field: string): string {
  if (!LANGUAGE_CODE.test(value)) throw new ValidationError(`"${field}" must be a short language code such as "es"`);
  return value.toLowerCase();
}
