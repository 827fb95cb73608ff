import type Router from '@koa/router';
import { jsonBody } from '../../body-parsers.js';
import { optionalStringArray, requireObject, requireString } from '../../validation.js';
import type { V1Deps } from '../v1-router.js';

export function classificationRoutes(router: Router, { models, limits }: V1Deps): void {
  router.post('/classifications', jsonBody(limits.maxJsonBytes), async (ctx) => {
    const body = requireObject(ctx.request.body);
    const modelId = requireString(body, 'model');
    const query = requireString(body, 'query', { maxLength: limits.maxClassificationChars });
    const labels = optionalStringArray(body, 'labels', { maxItems: 50, maxLength: 200 });
    const classifier = await models.get(modelId, 'text-classification');
    ctx.body = { labels: await classifier.classify(query, labels ? { labels } : {}) };
  });
}
