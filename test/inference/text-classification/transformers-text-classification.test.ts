import { expect } from 'chai';
import type { Classifier, Label } from '../../../src/inference/types.js';
import { transformersTextClassification as engine } from '../../../src/inference/text-classification/transformers-text-classification.js';
import { entry, expectGivingUpLeavesOthersAnswered, fixtureContext, sum } from './fixture-models.js';

const ID = 'bert-sentiment-random';

function expectSorted(labels: Label[]): void {
  const confidences = labels.map((label) => label.confidence);
  expect(confidences).to.deep.equal([...confidences].sort((a, b) => b - a));
}

describe('transformers-text-classification engine (bert-sentiment-random fixture)', () => {
  let single: Classifier;
  let multi: Classifier;
  before(async () => {
    single = await engine.load(entry(ID, 'transformers-text-classification'), fixtureContext(ID));
    // Two workers: concurrent batches are spread over both, and answers must not depend on which.
    multi = await engine.load(entry(ID, 'transformers-text-classification', { multiLabel: true, workers: 2 }), fixtureContext(ID));
  });
  after(async () => {
    await single.dispose();
    await multi.dispose();
  });

  it("rejects a request with its signal's reason when the caller gives up, and still answers the others", async () => {
    await expectGivingUpLeavesOthersAnswered(single);
  });

  it('returns every label of the model, sorted by confidence, with softmax confidences summing to 1', async () => {
    const labels = await single.classify('a gorgeous , witty , seductive movie');
    expect(labels.map((l) => l.label).sort()).to.deep.equal(['negative', 'positive']);
    expectSorted(labels);
    expect(sum(labels.map((l) => l.confidence))).to.be.closeTo(1, 1e-5);
  });

  it('gives independent sigmoid confidences for a multi-label model', async () => {
    const [softmaxLabels, sigmoidLabels] = await Promise.all([single.classify('boring movie'), multi.classify('boring movie')]);
    expectSorted(sigmoidLabels);
    for (const label of sigmoidLabels) expect(label.confidence).to.be.within(0, 1);
    // softmax of two logits is the sigmoid of their difference, so the two views must agree.
    const logit = (p: number) => Math.log(p / (1 - p));
    const byName = (labels: Label[], name: string) => labels.find((l) => l.label === name)!.confidence;
    expect(logit(byName(sigmoidLabels, 'positive')) - logit(byName(sigmoidLabels, 'negative'))).to.be.closeTo(logit(byName(softmaxLabels, 'positive')), 1e-3);
  });

  it('answers many concurrent requests over two workers like one at a time', async () => {
    const texts = Array.from({ length: 40 }, (_, i) => `text number ${i} ${'good '.repeat(i % 9)}`);
    const together = await Promise.all(texts.map((text) => multi.classify(text)));
    for (const [index, text] of texts.entries()) {
      if (index % 8 !== 0) continue;
      const alone = await multi.classify(text);
      alone.forEach((label, i) => expect(label.confidence).to.be.closeTo(together[index]![i]!.confidence, 1e-4));
    }
  });

  it('gives the same answer whether a text is batched with others or alone', async () => {
    const texts = ['good', 'a much longer text about a terrible film with bad acting', 'hello world'];
    const together = await Promise.all(texts.map((text) => single.classify(text)));
    for (const [index, text] of texts.entries()) {
      const alone = await single.classify(text);
      expect(alone.map((l) => l.label)).to.deep.equal(together[index]!.map((l) => l.label));
      alone.forEach((label, i) => expect(label.confidence).to.be.closeTo(together[index]![i]!.confidence, 1e-4));
    }
  });

  it('truncates a text longer than the model window instead of failing', async () => {
    const labels = await single.classify('good movie '.repeat(500));
    expect(labels).to.have.length(2);
  });

  it('refuses request labels, since its label set is fixed', async () => {
    let error: unknown;
    await single.classify('good', { labels: ['x'] }).catch((caught) => (error = caught));
    expect((error as { status?: number })?.status).to.equal(400);
  });

  it('fails to load when the manifest labels disagree with config.json', async () => {
    const bad = entry(ID, 'transformers-text-classification', { labels: ['yes', 'no'] });
    let error: unknown;
    await engine.load(bad, fixtureContext(ID)).catch((caught) => (error = caught));
    expect(String(error)).to.match(/differ from config\.json/);
  });

  it('describes its labels and multi_label without loading', () => {
    const description = engine.describe!(entry(ID, 'transformers-text-classification', { labels: ['negative', 'positive'] }));
    expect(description).to.deep.equal({ labels: ['negative', 'positive'], multi_label: false });
  });
});
