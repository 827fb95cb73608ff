/**
 * TEI's error types on its routes, paired with statuses as text-embeddings-inference pairs them
 * (router/src/lib.rs): a model that cannot serve is `Unhealthy` (TEI's 503), a busy task
 * `Overloaded` (TEI's 429; ours keeps its 503 with Retry-After).
 */
import { expect } from 'chai';
import { DEFAULT_LIMITS } from '../../src/config/load-config.js';
import { heldEngine } from '../helpers/held-engine.js';
import { NOT_INSTALLED_TEXT_MODELS } from '../helpers/not-installed-models.js';
import { bearer, createTestApp, type TestApp } from '../helpers/test-app.js';
import { until } from '../helpers/until.js';

describe('TEI error types', () => {
  it('answers a model that is not installed with 503 "Unhealthy" on /embed, /predict and POST /', async () => {
    const app = await createTestApp({ manifest: { models: [...NOT_INSTALLED_TEXT_MODELS] } });
    try {
      for (const path of ['/embed', '/predict', '/']) {
        const res = await app.request.post(path).set('Authorization', bearer()).send({ inputs: 'hello' });
        expect(res.status, path).to.equal(503);
        expect(res.body, path).to.deep.include({ error_type: 'Unhealthy' });
        expect(res.body.error, path).to.match(/is not installed/);
      }
    } finally {
      await app.close();
    }
  });

  describe('a busy task', () => {
    let app: TestApp;
    const { engine, state } = heldEngine();
    before(async () => {
      app = await createTestApp({
        manifest: { models: [{ id: 'held', task: 'text-classification', engine: 'held', description: 'test', license: 'mit' }] },
        engines: { held: engine },
        limits: { maxPendingRequests: { ...DEFAULT_LIMITS.maxPendingRequests, 'text-classification': 1 } },
      });
    });
    after(() => app.close());

    it('answers 503 "Overloaded" with Retry-After on /predict while the bound is full', async () => {
      const predict = () => app.request.post('/predict').set('Authorization', bearer()).send({ inputs: 'hello' });
      const first = predict().then((res) => res);
      await until(() => state.running === 1);
      const refused = await predict();
      expect(refused.status).to.equal(503);
      expect(refused.headers['retry-after']).to.equal('1');
      expect(refused.body).to.deep.include({ error_type: 'Overloaded' });
      state.open();
      expect((await first).status).to.equal(200);
    });
  });
});
