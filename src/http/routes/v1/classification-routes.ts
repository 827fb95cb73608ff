import { Type, type Static } from '@sinclair/typebox';
import { LIMIT_SETTINGS, type Limits } from '../../../config/load-config.js';
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
import { Text } from '../../schema-types.js';
import type { V1RouteDeps } from '../v1-router.js';
import type { Models } from '../../scoped-models.js';
import type { RequestValidator } from '../../validation.js';
import { claimBatch } from '../../admission.js';
import { requestSignal } from '../../request-signal.js';

/** Candidate labels per request (zero-shot and embedding models); each costs one model pair or embedding. */
const MAX_REQUEST_LABELS = 50;
const MAX_LABEL_CHARS = 200;
/** Texts per batch request; each is classified on its own, so a batch holds that many admission slots. */
const MAX_CLASSIFICATION_BATCH = 64;

const classificationRequest = (limits: Limits) =>
  Type.Object(
    {
      model: Text('Text-classification model id.'),
      query: Type.Union(
        [
          Text('The text to classify.', { maxLength: limits.maxClassificationChars }),
          Type.Array(Text('A text to classify.', { maxLength: limits.maxClassificationChars }), { minItems: 1, maxItems: MAX_CLASSIFICATION_BATCH }),
        ],
        {
          description: `The text to classify, or an array of up to ${MAX_CLASSIFICATION_BATCH} texts (the answer is then \`results\`, one per text, in order).`,
        },
      ),
      labels: Type.Optional(
        Type.Array(Text('A candidate label.', { maxLength: MAX_LABEL_CHARS }), {
          minItems: 1,
          maxItems: MAX_REQUEST_LABELS,
          description: 'Candidate labels (zero-shot and embedding models only).',
        }),
      ),
    },
    { $id: 'ClassificationRequest' },
  );

/**
 * The same request in TEI's words (`/predict`): `inputs`, a text or texts; without `model`, the
 * default classification model answers, as TEI serves its one model.
 */
const teiClassificationRequest = (limits: Limits) =>
  Type.Object(
    {
      inputs: Type.Union(
        [
          Text('The text to classify.', { maxLength: limits.maxClassificationChars }),
          Type.Array(Text('A text to classify.', { maxLength: limits.maxClassificationChars }), { minItems: 1, maxItems: MAX_CLASSIFICATION_BATCH }),
        ],
        { description: `A text, or an array of up to ${MAX_CLASSIFICATION_BATCH} texts.` },
      ),
      model: Type.Optional(Text('Text-classification model id; default: the first installed one (`default` models first).')),
      truncate: Type.Optional(Type.Boolean({ description: 'Texts longer than the model window are always truncated here.' })),
    },
    { $id: 'ClassificationRequestTei' },
  );

type ClassificationRequest = Static<ReturnType<typeof classificationRequest>>;

/** Our request, from either shape: a body with `inputs` and no `query` is TEI's, checked by its own schema and read as ours. */
function classificationRequestParser(validator: RequestValidator, limits: Limits, models: Models) {
  const parseOurs = validator.compile(classificationRequest(limits));
  const parseTei = validator.compile(teiClassificationRequest(limits));
  return async (body: unknown): Promise<ClassificationRequest> => {
    const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    if (fields.inputs === undefined || fields.query !== undefined) return parseOurs(body);
    const tei = parseTei(body);
    return { model: tei.model ?? (await models.defaultModel('text-classification')), query: tei.inputs };
  };
}

const Label = Type.Object({ label: Type.String({ description: 'Category name.' }), confidence: Type.Number({ minimum: 0, maximum: 1 }) }, { $id: 'Label' });
const ClassificationResult = Type.Object(
  { labels: Type.Array(Label, { description: 'Every label, sorted by confidence, highest first.' }) },
  { $id: 'ClassificationResult' },
);
const ClassificationBatchResult = Type.Object(
  { results: Type.Array(ClassificationResult, { description: 'One result per text of `query`, in order.' }) },
  { $id: 'ClassificationBatchResult' },
);

/**
 * POST /v1/classifications {model, query, labels?} → {labels: [{label, confidence}]}: every label
 * of the model, sorted by confidence, descending. Longer token sequences than the model's window
 * are truncated. `labels` is accepted by zero-shot and embedding models only. An array `query`
 * answers {results: [{labels}, …]} in the same order.
 */
export function classificationRoutes(router: DocumentedRouter, { models, limits, admit, validator }: V1RouteDeps): void {
  const request = classificationRequest(limits);
  const parse = classificationRequestParser(validator, limits, models);
  declareRoute(
    router,
    {
      method: 'post',
      path: '/classifications',
      tags: [taskTag('text-classification')],
      summary: 'Classify a text or a batch of texts',
      description:
        'Returns every label with a confidence, highest first. With `labels`, a zero-shot model scores those candidate labels instead of its own. An array `query` answers `results`, one per text; each text holds one admission slot. Also accepts TEI’s body, `{inputs}`, answered in this route’s shape; without `model` the default classification model answers.',
      secured: true,
      requestBody: jsonRequest(Type.Union([request, teiClassificationRequest(limits)])),
      responses: {
        '200': jsonResponse('The labels; for an array `query`, one result per text.', Type.Union([ClassificationResult, ClassificationBatchResult])),
        '400': jsonBody400(),
        ...V1_COMMON_ERRORS,
        '413': jsonError(`The body is larger than ${megabytes(limits.maxJsonBytes)}, or the batch is larger than the server holds at once.`, [
          'payload_too_large',
        ]),
        '415': JSON_ONLY_415,
      },
    },
    admit('text-classification'),
    jsonBody(limits.maxJsonBytes, LIMIT_SETTINGS.maxJsonBytes),
    async (ctx) => {
      const { model, query, labels } = await parse(ctx.request.body);
      if (Array.isArray(query)) claimBatch(ctx, query.length);
      const classifier = await models.get(model, 'text-classification');
      const options = { ...(labels ? { labels } : {}), signal: requestSignal(ctx) };
      ctx.body = Array.isArray(query)
        ? { results: await Promise.all(query.map(async (text) => ({ labels: await classifier.classify(text, options) }))) }
        : { labels: await classifier.classify(query, options) };
    },
  );
}
