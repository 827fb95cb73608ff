/**
 * Hugging Face Text Embeddings Inference's API at the root, so TEI clients (huggingface_hub's
 * `feature_extraction`, LangChain's HuggingFaceEndpointEmbeddings, plain requests) work pointed
 * at this server: `POST /embed` (sentence embeddings), `POST /predict` (classification),
 * `POST /` (either, by the model served: TEI's own root route), `GET /info` and `POST /rerank`.
 * The key is a Bearer key, as TEI's `--api-key`. Errors are TEI's `{"error": "…", "error_type": "…"}`
 * (error-middleware.ts).
 *
 * TEI serves one model per server. Here `?model=` picks any, and without it: `/` and `/info`
 * serve TEI_MODEL, or else the default embedding model; `/embed` and `/predict` serve TEI_MODEL
 * when it is of their task, or else the task's default model. `POST /` answers as `/embed` for
 * an embedding model and as `/predict` for a classifier, as TEI's router does.
 *
 * huggingface_hub's InferenceClient(model="<base>/predict").text_classification() sends the
 * Inference API task shape `{inputs, parameters: {top_k?, function_to_apply?}}` and reads the
 * first element of the answer: a body with `parameters` gets that API's nested `[[{label, score}]]`
 * (best first, cut to `top_k`); without it, TEI's own shapes.
 */
import { Type } from '@sinclair/typebox';
import type { Context, Middleware } from 'koa';
import { LIMIT_SETTINGS, type Limits } from '../../config/load-config.js';
import { AppError, ValidationError, WrongModelTaskError } from '../../errors.js';
import type { ModelInfo } from '../../inference/model-registry.js';
import { EMBEDDING_INPUT_TYPES } from '../../inference/types.js';
import { claimBatch, type Admission } from '../admission.js';
import { jsonBody } from '../body-parsers.js';
import { declareRoute, jsonResponse, teiError, type DocumentedRouter, type Json } from '../operation.js';
import { requestSignal } from '../request-signal.js';
import type { Models } from '../scoped-models.js';
import { StringEnum } from '../schema-types.js';
import type { RequestValidator } from '../validation.js';

export const TEI_PATHS: ReadonlySet<string> = new Set(['/', '/embed', '/predict', '/info', '/rerank']);
/** Texts per request (TEI's --max-client-batch-size). */
const MAX_BATCH = 256;
/** The TEI release whose API (router/src/http/server.rs) these routes follow; /info reports it. */
const TEI_VERSION = '1.9.3';

type TeiTask = 'embeddings' | 'text-classification';

interface TeiDeps {
  models: Models;
  admit: Admission;
  requireKey: Middleware;
  validator: RequestValidator;
  limits: Limits;
  /** The model `/` and `/info` serve without `?model=` (TEI_MODEL); the default embedding model without it. */
  servedModel?: string;
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
  const body = jsonBody(limits.maxJsonBytes, LIMIT_SETTINGS.maxJsonBytes);
  const admitEmbed = admit('embeddings', { maxBodyBytes: limits.maxJsonBytes });
  const admitPredict = admit('text-classification');
  const queryModel = (ctx: Context) => (typeof ctx.query.model === 'string' && ctx.query.model !== '' ? ctx.query.model : undefined);

  /** The model of a task route: `?model=`, or TEI_MODEL when it is of the task, or the task's default. */
  const modelOf = async (ctx: Context, task: TeiTask) => {
    const asked = queryModel(ctx);
    if (asked) return asked;
    const served = deps.servedModel;
    return served && models.taskOf(served) === task ? served : models.defaultModel(task);
  };
  /** The one model `/` and `/info` serve, and its task. */
  const servedBy = async (ctx: Context): Promise<{ model: string; task: TeiTask }> => {
    const model = queryModel(ctx) ?? deps.servedModel ?? (await models.defaultModel('embeddings'));
    const task = models.taskOf(model);
    if (task !== 'embeddings' && task !== 'text-classification') throw new WrongModelTaskError(model, task, 'an embedding or classification model (TEI)');
    return { model, task };
  };

  const embed =
    (model: (ctx: Context) => Promise<string>): Middleware =>
    async (ctx) => {
      const request = parseEmbed(ctx.request.body);
      if (request.normalize === false) throw new ValidationError('"normalize": false is not supported: this server returns unit-length vectors');
      if (Array.isArray(request.inputs)) claimBatch(ctx, request.inputs.length);
      const embedder = await models.get(await model(ctx), 'embeddings');
      const vectors = await embedder.embed(typeof request.inputs === 'string' ? [request.inputs] : request.inputs, {
        signal: requestSignal(ctx),
        ...(request.prompt_name ? { inputType: request.prompt_name } : {}),
      });
      ctx.body = vectors.map((vector) => Array.from(vector));
    };

  const predict =
    (model: (ctx: Context) => Promise<string>): Middleware =>
    async (ctx) => {
      const raw = (ctx.request.body as { inputs?: unknown })?.inputs;
      if (Array.isArray(raw) && raw.some(Array.isArray))
        throw new ValidationError('"inputs" as text pairs needs a cross-encoder, and none is served here; send texts');
      const request = parsePredict(ctx.request.body);
      if (request.raw_scores === true) throw new ValidationError('"raw_scores": true is not supported: scores are probabilities');
      if (Array.isArray(request.inputs)) claimBatch(ctx, request.inputs.length);
      const classifier = await models.get(await model(ctx), 'text-classification');
      const signal = requestSignal(ctx);
      const topK = request.parameters?.top_k;
      const score = async (text: string) =>
        (await classifier.classify(text, { signal }))
          .map(({ label, confidence }) => ({ label, score: confidence }))
          .sort((a, b) => b.score - a.score)
          .slice(0, topK);
      const answers = typeof request.inputs === 'string' ? [await score(request.inputs)] : await Promise.all(request.inputs.map(score));
      ctx.body = typeof request.inputs === 'string' && request.parameters === undefined ? answers[0] : answers;
    };

  const model = {
    name: 'model',
    in: 'query',
    required: false,
    description: 'Model id; default: TEI_MODEL when it is of the task, else the first installed model of the task.',
    schema: { type: 'string' },
  };
  const errors = {
    '400': teiError('An invalid body, or an option this server does not support.'),
    '401': teiError('Missing or invalid Bearer key.'),
    '404': teiError('`?model=` names no model of the manifest.'),
    '503': teiError('No model of the task installed or loadable (`Unhealthy`), or busy (`Overloaded`, with Retry-After).'),
  };
  const vectors = jsonResponse('One unit-length vector per input.', { type: 'array', items: { type: 'array', items: { type: 'number' } } });
  const scores = jsonResponse('`[{label, score}]` (best first) for one text, an array of those for an array or when `parameters` is sent.', { type: 'array' });

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
      responses: { '200': vectors, ...errors },
    },
    requireKey,
    admitEmbed,
    body,
    embed((ctx) => modelOf(ctx, 'embeddings')),
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
      responses: { '200': scores, ...errors },
    },
    requireKey,
    admitPredict,
    body,
    predict((ctx) => modelOf(ctx, 'text-classification')),
  );

  const served = {
    ...model,
    description: 'Model id; default: TEI_MODEL, else the first installed embedding model. Its task decides what `/` answers.',
  };
  declareRoute(
    router,
    {
      method: 'post',
      path: '/',
      tags: ['tei'],
      summary: 'Embed or classify texts by the model served (TEI API root route)',
      description:
        'As TEI: `/embed` for an embedding model, `/predict` for a classifier. The model is `?model=`, else TEI_MODEL, else the first installed embedding model. `GET /` is the greeting.',
      secured: true,
      parameters: [served],
      requestBody: { required: true, content: { 'application/json': { schema: { oneOf: [embedBody, predictBody] } } } },
      responses: { '200': jsonResponse('As `/embed` or as `/predict`.', { type: 'array' }), ...errors },
    },
    requireKey,
    // The served model is known from the query and the manifest alone, so the admission slot
    // taken is of its task, before the body is read.
    async (ctx) => {
      const { model: id, task } = await servedBy(ctx);
      const [door, answer] = task === 'embeddings' ? [admitEmbed, embed(async () => id)] : [admitPredict, predict(async () => id)];
      await door(ctx, () => body(ctx, () => answer(ctx, async () => {})));
    },
  );

  declareRoute(
    router,
    {
      method: 'get',
      path: '/info',
      tags: ['tei'],
      summary: 'The model `/` serves, in TEI’s /info shape (loads it)',
      secured: true,
      parameters: [served],
      responses: {
        '200': jsonResponse('TEI’s Info: model_id, model_type, max_input_length, max_client_batch_size, version, …', { type: 'object' }),
        ...errors,
      },
    },
    requireKey,
    async (ctx) => {
      const { model: name, task } = await servedBy(ctx);
      const id = await models.resolve(name, task);
      const info = (await models.list()).find((candidate) => candidate.id === id);
      // Loaded, as TEI's server has its model: the window is read from the model's own files.
      const loaded = await models.get(id, task);
      ctx.body = teiInfo(id, task, info, loaded.maxInputTokens, limits.maxPendingRequests[task]);
    },
  );

  declareRoute(
    router,
    {
      method: 'post',
      path: '/rerank',
      tags: ['tei'],
      summary: 'Rerank texts against a query (TEI API): needs a cross-encoder, which this server has none of',
      secured: true,
      responses: { '424': teiError('No cross-encoder (re-ranker) model is served: TEI answers 424 for a model that is not a re-ranker.'), ...errors },
    },
    requireKey,
    () => {
      throw noCrossEncoder('/rerank');
    },
  );
}

/** TEI's 424 for a model that is not a re-ranker: none is in the catalogue. */
function noCrossEncoder(what: string): AppError {
  return new AppError(
    424,
    'wrong_model_task',
    `${what} needs a cross-encoder (re-ranker) model, and this server has none: the catalogue holds no cross-encoder. Send texts to /embed and compare the vectors, or to /predict`,
  );
}

/** TEI's Info (router/src/lib.rs) for one of our models. */
function teiInfo(id: string, task: TeiTask, info: ModelInfo | undefined, maxInputTokens: number | undefined, maxConcurrent: number): Json {
  const labels = Array.isArray(info?.labels) ? (info.labels as string[]) : [];
  return {
    model_id: id,
    model_sha: null,
    ...(typeof info?.dtype === 'string' ? { model_dtype: info.dtype } : {}),
    served_model_name: id,
    model_type:
      task === 'embeddings'
        ? { embedding: { pooling: typeof info?.pooling === 'string' ? info.pooling : 'mean' } }
        : {
            classifier: {
              id2label: Object.fromEntries(labels.map((label, index) => [String(index), label])),
              label2id: Object.fromEntries(labels.map((label, index) => [label, index])),
            },
          },
    max_concurrent_requests: maxConcurrent,
    max_input_length: maxInputTokens ?? null,
    max_batch_tokens: maxInputTokens === undefined ? null : maxInputTokens * MAX_BATCH,
    max_batch_requests: null,
    max_client_batch_size: MAX_BATCH,
    auto_truncate: true,
    tokenization_workers: null,
    version: TEI_VERSION,
    sha: null,
    docker_label: null,
  };
}
