/**
 * Hugging Face Text Embeddings Inference's API at the root, so TEI clients (huggingface_hub's
 * `feature_extraction`, LangChain's HuggingFaceEndpointEmbeddings, plain requests) work pointed
 * at this server: `POST /embed` (sentence embeddings) and `POST /predict` (classification).
 * TEI serves one model per server; here `?model=` picks one, and without it the first installed
 * model of the task (`default` ones first) answers. The key is a Bearer key, as TEI's `--api-key`.
 * Errors are `{"error": "…"}` (TEI adds `error_type`, which clients do not read).
 *
 * huggingface_hub's InferenceClient(model="<base>/predict").text_classification() sends the
 * Inference API task shape `{inputs, parameters: {top_k?, function_to_apply?}}` and reads the
 * first element of the answer: a body with `parameters` gets that API's nested `[[{label, score}]]`
 * (best first, cut to `top_k`); without it, TEI's own shapes.
 */
import { Type } from '@sinclair/typebox';
import type { Context, Middleware } from 'koa';
import type { Limits } from '../../config/load-config.js';
import { ValidationError } from '../../errors.js';
import { EMBEDDING_INPUT_TYPES, type Task } from '../../inference/types.js';
import { claimBatch, type Admission } from '../admission.js';
import { jsonBody } from '../body-parsers.js';
import { declareRoute, jsonResponse, messageError, type DocumentedRouter } from '../operation.js';
import { requestSignal } from '../request-signal.js';
import type { Models } from '../scoped-models.js';
import { StringEnum } from '../schema-types.js';
import type { RequestValidator } from '../validation.js';

export const TEI_PATHS: ReadonlySet<string> = new Set(['/embed', '/predict']);
const MAX_BATCH = 256;

interface TeiDeps {
  models: Models;
  admit: Admission;
  requireKey: Middleware;
  validator: RequestValidator;
  limits: Limits;
}

const texts = (limits: Limits, what: string) =>
  Type.Union(
    [
      Type.String({ maxLength: limits.maxClassificationChars }),
      Type.Array(Type.String({ maxLength: limits.maxClassificationChars }), { minItems: 1, maxItems: MAX_BATCH }),
    ],
    {
      description: `${what}: a text or an array of up to ${MAX_BATCH}.`,
    },
  );
const EmbedBody = (limits: Limits) =>
  Type.Object(
    {
      inputs: texts(limits, 'Texts to embed'),
      normalize: Type.Optional(Type.Boolean({ description: 'Vectors are always unit length here; `false` is refused.' })),
      truncate: Type.Optional(Type.Boolean({ description: 'Texts longer than the model window are always truncated here.' })),
      prompt_name: Type.Optional(
        StringEnum(EMBEDDING_INPUT_TYPES, {
          description:
            'The prompt put before each text: `query` or `passage` (the default) for models trained with prefixes (multilingual-e5: `query: `, `passage: `); others ignore it.',
        }),
      ),
    },
    { $id: 'TeiEmbedRequest' },
  );
const PredictBody = (limits: Limits) =>
  Type.Object(
    {
      inputs: texts(limits, 'Texts to classify'),
      raw_scores: Type.Optional(Type.Boolean({ description: 'Scores are always probabilities here; `true` is refused.' })),
      truncate: Type.Optional(Type.Boolean()),
      parameters: Type.Optional(
        Type.Object(
          {
            top_k: Type.Optional(Type.Integer({ minimum: 1, description: 'Keep the best k labels.' })),
            function_to_apply: Type.Optional(StringEnum(['softmax'] as const, { description: 'Only `softmax`: scores are probabilities.' })),
          },
          { description: 'Hugging Face Inference API task parameters (huggingface_hub sends them); the answer is then nested, `[[{label, score}]]`.' },
        ),
      ),
    },
    { $id: 'TeiPredictRequest' },
  );

export function teiRoutes(router: DocumentedRouter, deps: TeiDeps): void {
  const { models, limits, admit, requireKey } = deps;
  const embedBody = EmbedBody(limits);
  const predictBody = PredictBody(limits);
  const parseEmbed = deps.validator.compile(embedBody);
  const parsePredict = deps.validator.compile(predictBody);
  const body = jsonBody(limits.maxJsonBytes);
  const modelFor = async (ctx: Context, task: Task) => (typeof ctx.query.model === 'string' ? ctx.query.model : models.defaultModel(task));
  const model = {
    name: 'model',
    in: 'query',
    required: false,
    description: 'Model id; default: the first installed model of the task.',
    schema: { type: 'string' },
  };
  const errors = {
    '400': messageError('An invalid body, or an option this server does not support.'),
    '401': messageError('Missing or invalid Bearer key.'),
    '503': messageError('No model of the task installed, or busy.'),
  };

  declareRoute(
    router,
    {
      method: 'post',
      path: '/embed',
      tags: ['tei'],
      summary: 'Embed texts (TEI API)',
      secured: true,
      parameters: [model],
      requestBody: { required: true, content: { 'application/json': { schema: embedBody } } },
      responses: {
        '200': jsonResponse('One unit-length vector per input.', { type: 'array', items: { type: 'array', items: { type: 'number' } } }),
        ...errors,
      },
    },
    requireKey,
    admit('embeddings'),
    body,
    async (ctx) => {
      const request = parseEmbed(ctx.request.body);
      if (request.normalize === false) throw new ValidationError('"normalize": false is not supported: this server returns unit-length vectors');
      if (Array.isArray(request.inputs)) claimBatch(ctx, request.inputs.length);
      const embedder = await models.get(await modelFor(ctx, 'embeddings'), 'embeddings');
      const vectors = await embedder.embed(typeof request.inputs === 'string' ? [request.inputs] : request.inputs, {
        signal: requestSignal(ctx),
        ...(request.prompt_name ? { inputType: request.prompt_name } : {}),
      });
      ctx.body = vectors.map((vector) => Array.from(vector));
    },
  );

  declareRoute(
    router,
    {
      method: 'post',
      path: '/predict',
      tags: ['tei'],
      summary: 'Classify texts (TEI API)',
      secured: true,
      parameters: [model],
      requestBody: { required: true, content: { 'application/json': { schema: predictBody } } },
      responses: {
        '200': jsonResponse('`[{label, score}]` (best first) for one text, an array of those for an array or when `parameters` is sent.', { type: 'array' }),
        ...errors,
      },
    },
    requireKey,
    admit('text-classification'),
    body,
    async (ctx) => {
      const raw = (ctx.request.body as { inputs?: unknown })?.inputs;
      if (Array.isArray(raw) && raw.some(Array.isArray))
        throw new ValidationError('"inputs" as text pairs needs a cross-encoder, and none is served here; send texts');
      const request = parsePredict(ctx.request.body);
      if (request.raw_scores === true) throw new ValidationError('"raw_scores": true is not supported: scores are probabilities');
      if (Array.isArray(request.inputs)) claimBatch(ctx, request.inputs.length);
      const classifier = await models.get(await modelFor(ctx, 'text-classification'), 'text-classification');
      const signal = requestSignal(ctx);
      const topK = request.parameters?.top_k;
      const score = async (text: string) =>
        (await classifier.classify(text, { signal }))
          .map(({ label, confidence }) => ({ label, score: confidence }))
          .sort((a, b) => b.score - a.score)
          .slice(0, topK);
      const answers = typeof request.inputs === 'string' ? [await score(request.inputs)] : await Promise.all(request.inputs.map(score));
      ctx.body = typeof request.inputs === 'string' && request.parameters === undefined ? answers[0] : answers;
    },
  );
}
