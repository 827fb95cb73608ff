import { Type, type Static } from '@sinclair/typebox';
import { LIMIT_SETTINGS, type Limits } from '../../../config/load-config.js';
import { ValidationError } from '../../../errors.js';
import { jsonBody } from '../../body-parsers.js';
import {
  declareRoute,
  JSON_ONLY_415,
  jsonBody400,
  jsonError,
  jsonRequest,
  jsonResponse,
  megabytes,
  V1_COMMON_ERRORS,
  type DocumentedRouter,
} from '../../operation.js';
import { taskTag } from '../../../inference/tasks.js';
import { StringEnum, Text } from '../../schema-types.js';
import type { RequestValidator } from '../../validation.js';
import type { V1RouteDeps } from '../v1-router.js';
import { requestSignal } from '../../request-signal.js';

const LANGUAGE_CODE = { pattern: '^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$', invalidMessage: 'must be a short language code such as "es"' };
const LANGUAGE_CODE_OR_AUTO = {
  pattern: '^(auto|[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*)$',
  invalidMessage: 'must be "auto" or a short language code such as "en"',
};

const translationRequest = (limits: Limits) =>
  Type.Object(
    {
      model: Text('Translation model id; equals the `{model}` path segment.'),
      text: Text('The text to translate.', { maxLength: limits.maxTranslationChars }),
      target_language: Text(
        'Short language code such as `es`; regional and three-letter forms (`es-MX`, `spa`) map to the model’s code. An unsupported language is a 400 listing the supported ones.',
        LANGUAGE_CODE,
      ),
      source_language: Type.Optional(Text('Short language code; optional (the model’s own source language, or detection, is used without it).', LANGUAGE_CODE)),
    },
    { $id: 'TranslationRequest' },
  );

/**
 * The same request in LibreTranslate's words, as its clients send it: `q`, `source` (`auto`: the
 * model's own source, or detection) and `target`; the model may be left to the path.
 */
const libreTranslateRequest = (limits: Limits) =>
  Type.Object(
    {
      q: Text('The text to translate.', { maxLength: limits.maxTranslationChars }),
      source: Text('Source language code, or `auto`.', LANGUAGE_CODE_OR_AUTO),
      target: Text('Target language code.', LANGUAGE_CODE),
      model: Type.Optional(Text('Translation model id; default: the `{model}` path segment.')),
      format: Type.Optional(StringEnum(['text'] as const, { description: 'Only `text`.' })),
      api_key: Type.Optional(Type.String({ maxLength: 256, description: 'Ignored here: the key goes in `Authorization: Bearer`.' })),
    },
    { $id: 'TranslationRequestLibreTranslate' },
  );

const TranslationResult = Type.Object({ translation: Type.String() }, { $id: 'TranslationResult' });

type TranslationRequest = Static<ReturnType<typeof translationRequest>>;

/**
 * Our request, from either shape: a body with `q` and no `text` is LibreTranslate's, checked by
 * its own schema and then read as ours.
 */
function translationRequestParser(validator: RequestValidator, limits: Limits) {
  const parseOurs = validator.compile(translationRequest(limits));
  const parseLibre = validator.compile(libreTranslateRequest(limits));
  return (body: unknown, pathModel: string): TranslationRequest => {
    const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    if (fields.q === undefined || fields.text !== undefined) return parseOurs(body);
    const libre = parseLibre(body);
    return {
      model: libre.model ?? pathModel,
      text: libre.q,
      target_language: libre.target,
      ...(libre.source === 'auto' ? {} : { source_language: libre.source }),
    };
  };
}

export function translationRoutes(router: DocumentedRouter, { models, limits, admit, validator }: V1RouteDeps): void {
  const request = translationRequest(limits);
  const parse = translationRequestParser(validator, limits);
  declareRoute(
    router,
    {
      method: 'post',
      path: '/engines/:model/translate',
      tags: [taskTag('translation')],
      summary: 'Translate a text',
      secured: true,
      parameters: [
        { name: 'model', in: 'path', required: true, description: 'Translation model id; must equal `model` in the body.', schema: { type: 'string' } },
      ],
      description:
        'Also accepts LibreTranslate’s body, `{q, source, target}` (`source` may be `auto`), with the model taken from the path when the body names none.',
      requestBody: jsonRequest(Type.Union([request, libreTranslateRequest(limits)])),
      responses: {
        '200': jsonResponse('The translation.', TranslationResult),
        '400': jsonBody400(', path and body models differ, an unsupported language'),
        ...V1_COMMON_ERRORS,
        '413': jsonError(`The body is larger than ${megabytes(limits.maxJsonBytes)}.`, ['payload_too_large']),
        '415': JSON_ONLY_415,
      },
    },
    admit('translation'),
    jsonBody(limits.maxJsonBytes, LIMIT_SETTINGS.maxJsonBytes),
    async (ctx) => {
      const body = parse(ctx.request.body, ctx.params.model ?? '');
      if (body.model !== ctx.params.model) {
        throw new ValidationError(`"model" in the body (${body.model}) must equal the model in the path (${ctx.params.model})`);
      }
      // The translator maps `es-MX` / `spa` to its own `es`, or answers 400 listing what it supports.
      const translator = await models.get(body.model, 'translation');
      const languages = {
        targetLanguage: body.target_language.toLowerCase(),
        ...(body.source_language ? { sourceLanguage: body.source_language.toLowerCase() } : {}),
      };
      ctx.body = { translation: await translator.translate(body.text, { ...languages, signal: requestSignal(ctx) }) };
    },
  );
}
