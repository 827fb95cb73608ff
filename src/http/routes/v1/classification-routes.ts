import type Router from '@koa/router';
import { Type } from '@sinclair/typebox';
import type { Limits } from '../../../config/load-config.js';
import { jsonBody } from '../../body-parsers.js';
import { JSON_ONLY_415, jsonBody400, jsonError, jsonRequest, jsonResponse, megabytes, V1_COMMON_ERRORS, type Operation } from '../../operation.js';
import { Text } from '../../schema-types.js';
import type { V1RouteDeps } from '../v1-router.js';
import { requestSignal } from '../../request-signal.js';

/** Candidate labels per request (zero-shot and embedding models); each costs one model pair or embedding. */
export const MAX_REQUEST_LABELS = 50;
export const MAX_LABEL_CHARS = 200;

export const classificationRequest = (limits: Limits) =>
  Type.Object(
    {
      model: Text('Text-classification model id.'),
      query: Text('The text to classify.', { maxLength: limits.maxClassificationChars }),
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

const Label = Type.Object(
  { label: Type.String({ description: 'Category name.' }), confidence: Type.Number({ minimum: 0, maximum: 1 }) },
  { $id: 'Label' },
);
const ClassificationResult = Type.Object(
  { labels: Type.Array(Label, { description: 'Every label, sorted by confidence, highest first.' }) },
  { $id: 'ClassificationResult' },
);

/**
 * POST /v1/classifications {model, query, labels?} → {labels: [{label, confidence}]}: every label
 * of the model, sorted by confidence, descending. Longer token sequences than the model's window
 * are truncated. `labels` is accepted by zero-shot and embedding models only.
 */
export function classificationRoutes(router: Router, { models, limits, admit, validator }: V1RouteDeps): void {
  const parse = validator.compile(classificationRequest(limits));
  router.post('/classifications', admit('text-classification'), jsonBody(limits.maxJsonBytes), async (ctx) => {
    const { model, query, labels } = parse(ctx.request.body);
    const classifier = await models.get(model, 'text-classification');
    ctx.body = { labels: await classifier.classify(query, { ...(labels ? { labels } : {}), signal: requestSignal(ctx) }) };
  });
}

export const classificationOperations = (limits: Limits): Operation[] => [
  {
    method: 'post',
    path: '/v1/classifications',
    tags: ['classification'],
    summary: 'Classify a text',
    description: 'Returns every label with a confidence, highest first. With `labels`, a zero-shot model scores those candidate labels instead of its own.',
    secured: true,
    requestBody: jsonRequest(classificationRequest(limits)),
    responses: {
      '200': jsonResponse('The labels.', ClassificationResult),
      '400': jsonBody400(),
      ...V1_COMMON_ERRORS,
      '413': jsonError(`The body is larger than ${megabytes(limits.maxJsonBytes)}.`, ['payload_too_large']),
      '415': JSON_ONLY_415,
    },
  },
];
