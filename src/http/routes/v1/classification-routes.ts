import type Router from '@koa/router';
import { jsonBody } from '../../body-parsers.js';
import { optionalStringArray, requireObject, requireString } from '../../validation.js';
import type { V1RouteDeps } from '../v1-router.js';
import { requestSignal } from '../../request-signal.js';

/** Candidate labels per request (zero-shot and embedding models); each costs one model pair or embedding. */
export const MAX_REQUEST_LABELS = 50;
export const MAX_LABEL_CHARS = 200;

/**
 * POST /v1/classifications {model, query, labels?} → {labels: [{label, confidence}]}: every label
 * of the model, sorted by confidence, descending. `query` must be non-blank and at most
 * limits.maxClassificationChars characters (400 otherwise); longer token sequences are truncated
 * to the model's window. `labels` is accepted by zero-shot and embedding models only.
 */
export function classificationRoutes(router: Router, { models, limits, admit }: V1RouteDeps): void {
  router.post('/classifications', admit('text-classification'), jsonBody(limits.maxJsonBytes), async (ctx) => {
    const body = requireObject(ctx.request.body);
    const modelId = requireString(body, 'model');
    const query = requireString(body, 'query', { maxLength: limits.maxClassificationChars });
    const labels = optionalStringArray(body, 'labels', { maxItems: MAX_REQUEST_LABELS, maxLength: MAX_LABEL_CHARS });
    const classifier = await models.get(modelId, 'text-classification');
    ctx.body = { labels: await classifier.classify(query, { ...(labels ? { labels } : {}), signal: requestSignal(ctx) }) };
  });
}
