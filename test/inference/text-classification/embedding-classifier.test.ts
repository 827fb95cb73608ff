import { expect } from 'chai';
import type { Classifier } from '../../../src/inference/types.js';
import { embeddingClassifier as engine } from '../../../src/inference/text-classification/embedding-classifier.js';
import { entry, fixtureContext, sum } from './fixture-models.js';

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
    together.forEach((labels, i) =>
      labels.forEach((label, j) => expect(label.confidence).to.be.closeTo(alone[i]![j]!.confidence, 1e-4)),
    );
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
});
