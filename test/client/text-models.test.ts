/** models, classify and translate through the client, on the real server and the random-weight fixture models. */
import { expect } from 'chai';
import { InferenceError } from '../../src/client/index.js';
import type { Manifest } from '../../src/inference/manifest.js';
import { rejection } from '../helpers/rejection.js';
import { serveTestApp, type ServedApp } from './serve-test-app.js';
import { FIXTURE_MODELS, FIXTURE_MODELS_DIR } from '../helpers/fixture-models.js';

const MANIFEST: Manifest = {
  models: [FIXTURE_MODELS.sentiment, FIXTURE_MODELS.nli, FIXTURE_MODELS.marian, FIXTURE_MODELS.sentimentAbsent],
};

describe('client: models, classify, translate (fixture models)', () => {
  let served: ServedApp;
  before(async () => {
    served = await serveTestApp({ manifest: MANIFEST, modelsDir: FIXTURE_MODELS_DIR });
  });
  after(() => served.close());

  describe('models', () => {
    it('list answers every model of the manifest with its task and install state', async () => {
      const models = await served.client().models.list();
      const byId = Object.fromEntries(models.map((model) => [model.id, model]));
      expect(byId['bert-sentiment-random']).to.include({ object: 'model', task: 'text-classification', installed: true });
      expect(byId['sentiment-absent']).to.include({ installed: false, install: 'npm run test-models' });
      expect(byId['nli-random']?.accepts_labels).to.equal(true);
      expect(byId['marian-en-es-random']?.target_languages).to.deep.equal(['es']);
    });

    it('list({installed: true}) leaves out the models that are not installed', async () => {
      const ids = (await served.client().models.list({ installed: true })).map((model) => model.id);
      expect(ids).to.include('bert-sentiment-random').and.not.include('sentiment-absent');
    });

    it('get answers one model; an unknown id is a 404 model_not_found', async () => {
      expect(await served.client().models.get('nli-random')).to.include({ id: 'nli-random', task: 'text-classification' });
      const error = await rejection(served.client().models.get('no/such model'));
      expect(error).to.be.instanceOf(InferenceError).and.include({ status: 404, code: 'model_not_found' });
    });

    it('load and unload (an admin key: the static test key) move a model between states', async () => {
      expect(await served.client().models.load('nli-random')).to.include({ id: 'nli-random', state: 'loaded' });
      expect(await served.client().models.unload('nli-random')).to.include({ id: 'nli-random', state: 'unloaded' });
    });
  });

  describe('classify', () => {
    it('answers every label of the model, highest confidence first, summing to 1', async () => {
      const { labels } = await served.client().classify({ model: 'bert-sentiment-random', query: 'a witty, gorgeous movie' });
      expect(labels.map((entry) => entry.label).sort()).to.deep.equal(['negative', 'positive']);
      expect(labels[0]!.confidence).to.be.at.least(labels[1]!.confidence);
      expect(labels[0]!.confidence + labels[1]!.confidence).to.be.closeTo(1, 1e-6);
    });

    it('scores the candidate labels of a zero-shot model', async () => {
      const { labels } = await served.client().classify({ model: 'nli-random', query: 'The match ended 2-1', labels: ['football', 'cooking', 'finance'] });
      expect(labels.map((entry) => entry.label).sort()).to.deep.equal(['cooking', 'finance', 'football']);
    });

    it('an array of texts answers {results}, one per text, in order', async () => {
      const client = served.client();
      const texts = ['a witty, gorgeous movie', 'dull and far too long', 'fine'];
      const { results } = await client.classify({ model: 'bert-sentiment-random', query: texts });
      expect(results).to.have.length(3);
      for (const [index, result] of results.entries()) {
        // Batched texts may share a padded model call: equal to the single answer within float noise.
        const single = await client.classify({ model: 'bert-sentiment-random', query: texts[index]! });
        const confidence = (labels: typeof single.labels, name: string) => labels.find((entry) => entry.label === name)!.confidence;
        for (const name of ['negative', 'positive']) expect(confidence(result.labels, name)).to.be.closeTo(confidence(single.labels, name), 1e-4);
      }
    });

    it('a model that is not installed is a 503 model_not_installed naming the command', async () => {
      const error = await rejection(served.client().classify({ model: 'sentiment-absent', query: 'hello' }));
      expect(error).to.include({ status: 503, code: 'model_not_installed' });
      expect(error.message).to.match(/npm run test-models/);
    });

    it('a model of another task is a 400 wrong_model_task', async () => {
      const error = await rejection(served.client().classify({ model: 'marian-en-es-random', query: 'hello' }));
      expect(error).to.include({ status: 400, code: 'wrong_model_task' });
    });
  });

  describe('translate', () => {
    it('answers {translation} (random weights: some text)', async () => {
      const result = await served.client().translate({ model: 'marian-en-es-random', text: 'I have two cats.', targetLanguage: 'es', sourceLanguage: 'en' });
      expect(result).to.have.all.keys('translation');
      expect(result.translation).to.be.a('string');
    });

    it('an unsupported target language is a 400 naming the supported ones', async () => {
      const error = await rejection(served.client().translate({ model: 'marian-en-es-random', text: 'Hello', targetLanguage: 'fr' }));
      expect(error).to.include({ status: 400, code: 'invalid_request' });
      expect(error.message).to.match(/es/);
    });
  });

  it('without an API key every /v1 call is a 401 unauthorized', async () => {
    const client = served.client({ apiKey: undefined });
    const error = await rejection(client.models.list());
    expect(error).to.include({ status: 401, code: 'unauthorized' });
    expect((error as InferenceError).requestId).to.be.a('string');
  });
});
