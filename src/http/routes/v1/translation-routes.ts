import type Router from '@koa/router';
import { ValidationError } from '../../../errors.js';
import { jsonBody } from '../../body-parsers.js';
import { optionalString, requireObject, requireString } from '../../validation.js';
import type { V1RouteDeps } from '../v1-router.js';
import { requestSignal } from '../../request-signal.js';

const LANGUAGE_CODE = /^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/;

export function translationRoutes(router: Router, { models, limits, admit }: V1RouteDeps): void {
  router.post('/engines/:model/translate', admit('translation'), jsonBody(limits.maxJsonBytes), async (ctx) => {
    const body = requireObject(ctx.request.body);
    const modelId = requireString(body, 'model');
    if (modelId !== ctx.params.model) {
      throw new ValidationError(`"model" in the body (${modelId}) must equal the model in the path (${ctx.params.model})`);
    }
    const text = requireString(body, 'text', { maxLength: limits.maxTranslationChars });
    const target = languageCode(requireString(body, 'target_language'), 'target_language');
    const source = optionalString(body, 'source_language');
    const sourceCode = source === undefined ? undefined : languageCode(source, 'source_language');

    // The translator maps `es-MX` / `spa` to its own `es`, or answers 400 listing what it supports.
    const translator = await models.get(modelId, 'translation');
    ctx.body = {
      translation: await translator.translate(text, { targetLanguage: target, ...(sourceCode ? { sourceLanguage: sourceCode } : {}), signal: requestSignal(ctx) }),
    };
  });
}

function languageCode(value: string, field: string): string {
  if (!LANGUAGE_CODE.test(value)) throw new ValidationError(`"${field}" must be a short language code such as "es"`);
  return value.toLowerCase();
}
