/**
 * The LibreTranslate API at the root (`POST /translate`, `GET|POST /languages`, `POST /detect`),
 * so LibreTranslate clients and plugins work pointed at this server. Bodies are JSON or
 * url-encoded forms, answers and errors take LibreTranslate's shapes (`{"error": "…"}`).
 *
 * Values are read as LibreTranslate reads them (app.py: `request.values` unless the body is
 * JSON): from a JSON body alone, or else from the query string and the form, the query string
 * first (deep-translator sends `POST /translate?q=…&source=…&target=…&api_key=…` with no body).
 * `GET /spec` is this API's part of /openapi.json, open as LibreTranslate's is.
 *
 * A key is needed to translate and detect: `api_key` (or `apiKey`, as the npm `libretranslate`
 * package sends it) in the body or query, or `Authorization: Bearer`. `/languages` is open, as in
 * LibreTranslate: the npm client asks it without any key and libretranslatepy puts its key in a GET
 * body, and it tells only which language codes are installed. The model is chosen from the language
 * pair among the installed translation models (language-pairs.ts).
 */
import { Type, type Static } from '@sinclair/typebox';
import type { Context, Middleware } from 'koa';
import { bearerToken } from '../../auth/api-key.js';
import type { KeyAccess } from '../../auth/key-access.js';
import { LIMIT_SETTINGS, type Limits } from '../../config/load-config.js';
import { AppError, ValidationError } from '../../errors.js';
import { identifyLanguage } from '../../inference/model-registry.js';
import type { Models } from '../scoped-models.js';
import type { Admission } from '../admission.js';
import { formOrJsonBody } from '../body-parsers.js';
import { declareRoute, jsonResponse, messageError, type DocumentedRouter, type Json } from '../operation.js';
import { requestSignal } from '../request-signal.js';
import { StringEnum } from '../schema-types.js';
import type { RequestValidator } from '../validation.js';
import { LanguagePairs } from './libretranslate/language-pairs.js';
import { serveConstant, type ConstantAnswers } from './root-router.js';

export const LIBRETRANSLATE_PATHS: ReadonlySet<string> = new Set(['/translate', '/languages', '/detect', '/spec']);
/** Texts in one batch request (LibreTranslate's --batch-limit). */
const MAX_BATCH = 64;

interface LibreTranslateDeps {
  models: Models;
  access: KeyAccess;
  admit: Admission;
  validator: RequestValidator;
  limits: Limits;
  /** Model ids to try first for a language pair (LIBRETRANSLATE_MODELS); then the manifest order. */
  preferredModels: readonly string[];
  /** The constant answers of the app, `/spec` among them (root-router.ts). */
  answers: ConstantAnswers;
}

const ApiKey = Type.Optional(Type.String({ maxLength: 256, description: 'The API key, if not sent as `Authorization: Bearer`.' }));
const TranslateBody = (limits: Limits) =>
  Type.Object(
    {
      q: Type.Union(
        [
          Type.String({ maxLength: limits.maxTranslationChars }),
          Type.Array(Type.String({ maxLength: limits.maxTranslationChars }), { minItems: 1, maxItems: MAX_BATCH }),
        ],
        {
          description: 'Text, or an array of texts.',
        },
      ),
      source: Type.String({ minLength: 1, maxLength: 16, description: 'Source language code, or `auto` to detect it.' }),
      target: Type.String({ minLength: 1, maxLength: 16, description: 'Target language code.' }),
      format: Type.Optional(StringEnum(['text', 'html'] as const, { description: '`text` (default); `html` is not supported here.' })),
      api_key: ApiKey,
      apiKey: ApiKey,
      alternatives: Type.Optional(Type.Unknown()),
    },
    { $id: 'LibreTranslateRequest' },
  );
const DetectBody = (limits: Limits) =>
  Type.Object(
    { q: Type.String({ maxLength: limits.maxTranslationChars, description: 'Text whose language to detect.' }), api_key: ApiKey },
    { $id: 'LibreTranslateDetect' },
  );

type TranslateBody = Static<ReturnType<typeof TranslateBody>>;
interface Guess {
  language: string;
  confidence: number;
}

export function libreTranslateRoutes(router: DocumentedRouter, deps: LibreTranslateDeps): void {
  const { models, limits, admit } = deps;
  const translateBody = TranslateBody(limits);
  const detectBody = DetectBody(limits);
  const parseTranslate = deps.validator.compile(translateBody);
  const parseDetect = deps.validator.compile(detectBody);
  const readBody = formOrJsonBody(limits.maxJsonBytes, LIMIT_SETTINGS.maxJsonBytes);
  const body: Middleware = (ctx, next) => readBody(ctx, () => (ctx.is('application/json') ? next() : (withQueryValues(ctx), next())));
  const requireKey = libreTranslateKey(deps.access);
  const pairs = new LanguagePairs(models, deps.preferredModels);
  const form = (schema: Json): Json => ({
    required: false,
    description: 'JSON, or a form; without a JSON body every field may come in the query string instead (it wins over the form, as in LibreTranslate).',
    content: { 'application/json': { schema }, 'application/x-www-form-urlencoded': { schema } },
  });
  const errors = {
    '400': messageError('Invalid request (LibreTranslate wording), unsupported language pair, or no API key.'),
    '403': messageError('Invalid API key.'),
    '503': messageError('No installed model for the pair could be loaded, or too many translations are in progress.'),
  };

  // The key may be in the body, so the body (bounded, and cut off if it trickles) is read first;
  // a translation slot is taken only by a client with a key.
  declareRoute(
    router,
    {
      method: 'post',
      path: '/translate',
      tags: ['libretranslate'],
      secured: true,
      summary: 'Translate (LibreTranslate API)',
      description: `\`q\` is a text or an array of up to ${MAX_BATCH}; \`source\` may be \`auto\`. The model is the installed translation model for the pair.`,
      requestBody: form(translateBody),
      responses: {
        '200': jsonResponse('`translatedText` (a string, or an array for an array `q`), and `detectedLanguage` when `source` was `auto`.', {
          type: 'object',
          properties: { translatedText: {}, detectedLanguage: {} },
        }),
        ...errors,
      },
    },
    body,
    requireKey,
    admit('translation'),
    async (ctx) => {
      const request = checkedTranslate(ctx, parseTranslate);
      const texts = typeof request.q === 'string' ? [request.q] : request.q;
      const total = texts.reduce((sum, text) => sum + [...text].length, 0);
      if (total > limits.maxTranslationChars) {
        throw new ValidationError(`Invalid request: request (${total}) exceeds text limit (${limits.maxTranslationChars})`);
      }
      const detected = request.source === 'auto' ? detectEach(texts) : undefined;
      const signal = requestSignal(ctx);
      const translations = [];
      for (const [index, text] of texts.entries()) {
        const source = detected?.[index]?.language ?? request.source;
        const translator = await pairs.translator(source, request.target);
        translations.push(await translator.translate(text, { sourceLanguage: source, targetLanguage: request.target, signal }));
      }
      const single = typeof request.q === 'string';
      ctx.body = {
        translatedText: single ? translations[0] : translations,
        ...(detected ? { detectedLanguage: single ? detected[0] : detected } : {}),
      };
    },
  );

  const languages: Middleware = async (ctx) => {
    ctx.body = await pairs.languages();
  };
  declareRoute(
    router,
    {
      method: 'get',
      path: '/languages',
      tags: ['libretranslate'],
      secured: false,
      summary: 'Languages of the installed translation models (LibreTranslate API; POST also accepted; no key needed)',
      responses: {
        '200': jsonResponse('`[{code, name, targets}]`', {
          type: 'array',
          items: { type: 'object', properties: { code: { type: 'string' }, name: { type: 'string' }, targets: { type: 'array', items: { type: 'string' } } } },
        }),
        ...errors,
      },
    },
    languages,
  );
  // Some clients POST, carrying their api_key; it is not needed here.
  declareRoute(
    router,
    {
      method: 'post',
      path: '/languages',
      tags: ['libretranslate'],
      secured: false,
      summary: 'Same as GET /languages, for clients that POST (a key they send is not needed)',
      responses: { '200': jsonResponse('As GET.', { type: 'array' }), ...errors },
    },
    body,
    languages,
  );

  declareRoute(
    router,
    {
      method: 'post',
      path: '/detect',
      tags: ['libretranslate'],
      secured: true,
      summary: 'Detect the language of a text (LibreTranslate API)',
      requestBody: form(detectBody),
      responses: {
        '200': jsonResponse('`[{language, confidence}]`, most likely first; confidence in percent.', {
          type: 'array',
          items: { type: 'object', properties: { language: { type: 'string' }, confidence: { type: 'number' } } },
        }),
        ...errors,
      },
    },
    body,
    requireKey,
    async (ctx) => {
      const { q } = parseDetect(ctx.request.body);
      const candidates = identifyLanguage(q);
      ctx.body = candidates.length > 0 ? candidates : [{ language: 'en', confidence: 0 }];
    },
  );

  declareRoute(
    router,
    {
      method: 'get',
      path: '/spec',
      tags: ['libretranslate'],
      secured: false,
      summary: 'This API’s part of /openapi.json (LibreTranslate serves its API document here; no key needed)',
      responses: { '200': jsonResponse('An OpenAPI 3.1 document of the LibreTranslate routes.', { type: 'object' }) },
    },
    serveConstant(deps.answers, '/spec'),
  );
}

/**
 * Without a JSON body, LibreTranslate reads Flask's `request.values`: the query string first (the
 * first value of a repeated name), then the form (whose `q[]` arrays are kept: batches by form
 * worked here before).
 */
function withQueryValues(ctx: Context): void {
  const values: Record<string, string | string[]> = { ...((ctx.request.body ?? {}) as Record<string, string | string[]>) };
  for (const [name, value] of Object.entries(ctx.query)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) values[name] = first;
  }
  ctx.request.body = values;
}

function checkedTranslate(ctx: Context, parse: (input: unknown) => TranslateBody): TranslateBody {
  const raw = (ctx.request.body ?? {}) as Record<string, unknown>;
  // LibreTranslate's own wording for a missing field, checked before the schema.
  for (const name of ['q', 'source', 'target']) {
    if (raw[name] === undefined || raw[name] === '' || (Array.isArray(raw[name]) && raw[name].length === 0)) {
      throw new ValidationError(`Invalid request: missing ${name} parameter`);
    }
  }
  const request = parse(raw);
  if (request.format === 'html') throw new ValidationError('html format is not supported by this server; send format "text"');
  return request;
}

/** As LibreTranslate: texts over 40 characters on their own, shorter ones by the whole request. */
function detectEach(texts: readonly string[]): Guess[] {
  const overall = identifyLanguage(texts.join('\n'))[0];
  return texts.map((text) => {
    const guess = (text.length > 40 ? identifyLanguage(text)[0] : undefined) ?? overall;
    if (!guess) throw new ValidationError('Could not detect the source language; send "source" explicitly');
    return guess;
  });
}

/** The key from `Authorization: Bearer`, or `api_key` (`apiKey`) in the body, or `api_key` in the query string. */
function libreTranslateKey(access: KeyAccess): Middleware {
  return async (ctx, next) => {
    const bearer = bearerToken(ctx.get('Authorization'));
    const fields = ctx.request.body as Record<string, unknown> | undefined;
    const fromBody = fields?.api_key ?? fields?.apiKey;
    const key = bearer ?? (typeof fromBody === 'string' ? fromBody : undefined) ?? (typeof ctx.query.api_key === 'string' ? ctx.query.api_key : undefined);
    if (!key) throw new AppError(400, 'unauthorized', 'Please send an API key: the api_key field or "Authorization: Bearer <API_KEY>"');
    const policy = await access.authorize(key);
    if (!policy) throw new AppError(403, 'unauthorized', 'Invalid API key');
    await access.run(policy, key, next);
  };
}
