import { Type } from '@sinclair/typebox';
import type { Limits } from '../../../config/load-config.js';
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
  const parse = validator.compile(request);
  declareRoute(
    router,
    {
      method: 'post',
      path: '/classifications',
      tags: [taskTag('text-classification')],
      summary: 'Classify a text or a batch of texts',
      description:
        'Returns every label with a confidence, highest first. With `labels`, a zero-shot model scores those candidate labels instead of its own. An array `query` answers `results`, one per text; each text holds one admission slot.',
      secured: true,
      requestBody: jsonRequest(request),
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
    jsonBody(limits.maxJsonBytes),
    async (ctx) => {
      const { model, query, labels } = parse(ctx.request.body);
      if (Array.isArray(query)) claimBatch(ctx, query.length);
      const classifier = await models.get(model, 'text-classification');
      const options = { ...(labels ? { labels } : {}), signal: requestSignal(ctx) };
      ctx.body = Array.isArray(query)
        ? { results: await Promise.all(query.map(async (text) => ({ labels: await classifier.classify(text, options) }))) }
        : { labels: await classifier.classify(query, options) };
    },
  );
}
