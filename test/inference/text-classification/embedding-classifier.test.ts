import { expect } from 'chai';
import { ManifestError } from '../../../src/inference/manifest.js';
import type { Classifier } from '../../../src/inference/types.js';
import { embeddingClassifier as engine } from '../../../src/inference/text-classification/embedding-classifier.js';
import { BatchModel } from '../../../src/inference/sentence-encoder/batch-model.js';
import { startBatchModel } from '../../../src/inference/sentence-encoder/load-transformers-model.js';
import { runningSentenceEmbedders } from '../../../src/inference/sentence-encoder/shared-embedders.js';
import { entry, expectGivingUpLeavesOthersAnswered, fixtureContext, sum } from './fixture-models.js';

const ID = 'minilm-random';
const LABELS = [
  { label: 'positive', descriptions: ['good movie', 'I love it', 'wonderful'] },
  { label: 'negative', description: 'terrible film' },
];

describe('embedding-classifier engine (minilm-random fixture)', () => {
  let classifier: Classifier;
  before(async () => {
    classifier = await engine.load(entry(ID, 'embedding-classifier', { labels: LABELS, temperature: 0.1 }), fixtureContext(ID));
  });
  after(() => classifier.dispose());

  it("rejects a request with its signal's reason when the caller gives up, and still answers the others", async () => {
    await expectGivingUpLeavesOthersAnswered(classifier, { labels: ['good movie', 'sports news'] });
  });

  it('returns every manifest label, sorted, with softmax confidences summing to 1', async () => {
    const labels = await classifier.classify('a gorgeous , witty , seductive movie');
    expect(labels.map((l) => l.label).sort()).to.deep.equal(['negative', 'positive']);
    expect(sum(labels.map((l) => l.confidence))).to.be.closeTo(1, 1e-5);
    expect(labels[0]!.confidence).to.be.at.least(labels[1]!.confidence);
  });

  it('ranks a prototype sentence under its own label', async () => {
    // With a single prototype the label direction is that sentence's own embedding (cosine 1).
    const labels = await classifier.classify('terrible film');
    expect(labels[0]!.label).to.equal('negative');
  });

  it('accepts request labels, each described by its own name', async () => {
    const labels = await classifier.classify('good movie', { labels: ['good movie', 'sports news', 'weather'] });
    expect(labels.map((l) => l.label)[0]).to.equal('good movie');
    expect(sum(labels.map((l) => l.confidence))).to.be.closeTo(1, 1e-5);
  });

  it('gives the same answer batched and alone', async () => {
    const texts = ['good', 'a much longer text about a terrible film with bad acting'];
    const together = await Promise.all(texts.map((text) => classifier.classify(text)));
    const alone: Awaited<ReturnType<typeof classifier.classify>>[] = [];
    for (const text of texts) alone.push(await classifier.classify(text));
    together.forEach((labels, i) => labels.forEach((label, j) => expect(label.confidence).to.be.closeTo(alone[i]![j]!.confidence, 1e-4)));
  });

  it('is installed through a shared base-model folder named by options.baseModel', async () => {
    const shared = entry('some-id', 'embedding-classifier', { baseModel: ID, labels: LABELS });
    const context = { ...fixtureContext('some-id') };
    expect(await engine.isInstalled!(shared, context)).to.equal(true);
    const other = await engine.load(shared, context);
    expect((await other.classify('good')).length).to.equal(2);
    await other.dispose();
  });

  it('describes its labels as single-label and accepting request labels', () => {
    expect(engine.describe!(entry(ID, 'embedding-classifier', { labels: LABELS }))).to.deep.equal({
      labels: ['positive', 'negative'],
      multi_label: false,
      accepts_labels: true,
    });
  });

  describe('with a linear head (options.head)', () => {
    // minilm-random gives 32-value embeddings; this head's positive row is the first axis.
    const WIDTH = 32;
    const axis = Array.from({ length: WIDTH }, (_, i) => (i === 0 ? 4 : 0));
    const HEAD = { weights: [axis, axis.map((v) => -v)], bias: [0.25, -0.25] };
    let headed: Classifier;
    before(async () => {
      headed = await engine.load(entry(ID, 'embedding-classifier', { labels: LABELS, head: HEAD }), fixtureContext(ID));
    });
    after(() => headed.dispose());

    it('scores the manifest labels by softmax(W·e + b) of the sentence embedding', async () => {
      const text = 'a gorgeous , witty , seductive movie';
      const e0 = (await embedding(text))[0]!;
      const labels = await headed.classify(text);
      const positive = labels.find((l) => l.label === 'positive')!.confidence;
      expect(positive).to.be.closeTo(1 / (1 + Math.exp(-(8 * e0 + 0.5))), 1e-4);
      expect(sum(labels.map((l) => l.confidence))).to.be.closeTo(1, 1e-5);
      expect(labels[0]!.confidence).to.be.at.least(labels[1]!.confidence);
    });

    it('still answers request labels by prototype similarity', async () => {
      const labels = await headed.classify('good movie', { labels: ['good movie', 'sports news', 'weather'] });
      expect(labels[0]!.label).to.equal('good movie');
    });

    it('fails to load when the head does not fit the embedding width', async () => {
      const narrow = {
        weights: [
          [1, 2],
          [3, 4],
        ],
        bias: [0, 0],
      };
      let error: unknown;
      await engine.load(entry(ID, 'embedding-classifier', { labels: LABELS, head: narrow }), fixtureContext(ID)).catch((e: unknown) => (error = e));
      expect(error).to.be.instanceOf(ManifestError);
      expect(String(error)).to.match(/expects 2-value embeddings, the model gives 32/);
    });
  });
});

describe('embedding classifiers on one base model (minilm-random fixture)', () => {
  // maxBatchSize 7 keeps these apart from the classifiers loaded by the other suites.
  const onBase = (id: string, options: Record<string, unknown> = {}) =>
    entry(id, 'embedding-classifier', { baseModel: ID, labels: LABELS, maxBatchSize: 7, ...options });
  let started: number;
  let disposed: number;
  const start = BatchModel.start;
  const dispose = BatchModel.prototype.dispose;
  beforeEach(() => {
    started = disposed = 0;
    BatchModel.start = (...args) => (started++, start.apply(BatchModel, args));
    BatchModel.prototype.dispose = function (this: BatchModel) {
      disposed++;
      return dispose.call(this);
    };
  });
  afterEach(() => {
    BatchModel.start = start;
    BatchModel.prototype.dispose = dispose;
  });

  it('share one set of workers, which ends when the last of them is disposed', async () => {
    const running = runningSentenceEmbedders();
    const [sentiment, topics] = await Promise.all([
      engine.load(onBase('sentiment-on-base'), fixtureContext('sentiment-on-base')),
      engine.load(onBase('topics-on-base', { labels: ['sports', 'politics', 'weather'] }), fixtureContext('topics-on-base')),
    ]);
    expect(started).to.equal(1);
    expect(runningSentenceEmbedders()).to.equal(running + 1);
    expect((await sentiment.classify('good')).length).to.equal(2);
    expect((await topics.classify('good')).length).to.equal(3);

    await sentiment.dispose();
    expect(disposed).to.equal(0);
    expect((await topics.classify('terrible film')).map((l) => l.label)).to.have.members(['sports', 'politics', 'weather']);

    await topics.dispose();
    expect(disposed).to.equal(1);
    expect(runningSentenceEmbedders()).to.equal(running);
  });

  it('gives the same answers shared as alone', async () => {
    const alone = await engine.load(onBase('alone'), fixtureContext('alone'));
    const expected = await alone.classify('a gorgeous , witty , seductive movie');
    const other = await engine.load(onBase('other', { labels: ['x', 'y'] }), fixtureContext('other'));
    expect(started).to.equal(1);
    expect(await alone.classify('a gorgeous , witty , seductive movie')).to.deep.equal(expected);
    await Promise.all([alone.dispose(), other.dispose()]);
  });

  it('start their own workers when their layout differs', async () => {
    const a = await engine.load(onBase('a'), fixtureContext('a'));
    const b = await engine.load(onBase('b', { maxBatchSize: 5 }), fixtureContext('b'));
    expect(started).to.equal(2);
    await Promise.all([a.dispose(), b.dispose()]);
    expect(disposed).to.equal(2);
  });

  it('releases the shared workers when a load fails after starting them', async () => {
    const running = runningSentenceEmbedders();
    const narrow = {
      weights: [
        [1, 2],
        [3, 4],
      ],
      bias: [0, 0],
    };
    const error = await engine.load(onBase('narrow', { head: narrow }), fixtureContext('narrow')).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ManifestError);
    expect(disposed).to.equal(1);
    expect(runningSentenceEmbedders()).to.equal(running);
  });
});

/** The fixture's unit sentence embedding of one text, from the same worker code the engine uses. */
async function embedding(text: string): Promise<Float32Array> {
  const model = await startBatchModel(ID, engine.options.read(entry(ID, 'embedding-classifier')), fixtureContext(ID), 'feature-extraction');
  try {
    return (await model.forward([text]))[0]!;
  } finally {
    await model.dispose();
  }
}
