import { expect } from 'chai';
import type { Classifier } from '../../../src/inference/types.js';
import { transformersZeroShot as engine } from '../../../src/inference/text-classification/transformers-zero-shot.js';
import { entry, expectGivingUpLeavesOthersAnswered, fixtureContext, sum } from './fixture-models.js';

const ID = 'nli-random';

describe('transformers-zero-shot engine (nli-random fixture)', () => {
  let withDefaults: Classifier;
  let multi: Classifier;
  before(async () => {
    withDefaults = await engine.load(
      entry(ID, 'transformers-zero-shot', { labels: ['sports', 'politics', { label: 'tech', description: 'technology' }] }),
      fixtureContext(ID),
    );
    multi = await engine.load(entry(ID, 'transformers-zero-shot', { multiLabel: true }), fixtureContext(ID));
  });
  after(async () => {
    await withDefaults.dispose();
    await multi.dispose();
  });

  it("rejects a request with its signal's reason when the caller gives up, and still answers the others", async () => {
    await expectGivingUpLeavesOthersAnswered(withDefaults);
  });

  it('uses the manifest label set when the request sends none; confidences sum to 1, sorted', async () => {
    const labels = await withDefaults.classify('the team won the cup');
    expect(labels.map((l) => l.label).sort()).to.deep.equal(['politics', 'sports', 'tech']);
    expect(sum(labels.map((l) => l.confidence))).to.be.closeTo(1, 1e-5);
    const confidences = labels.map((l) => l.confidence);
    expect(confidences).to.deep.equal([...confidences].sort((a, b) => b - a));
  });

  it('uses the request labels instead, de-duplicated', async () => {
    const labels = await withDefaults.classify('stocks fell', { labels: ['business', 'world', 'business'] });
    expect(labels.map((l) => l.label).sort()).to.deep.equal(['business', 'world']);
    expect(sum(labels.map((l) => l.confidence))).to.be.closeTo(1, 1e-5);
  });

  it('scores each label independently for a multi-label model', async () => {
    const labels = await multi.classify('the team won the cup', { labels: ['sports', 'politics', 'tech', 'music'] });
    expect(labels).to.have.length(4);
    for (const label of labels) expect(label.confidence).to.be.within(0, 1);
    // Independent scores: one label's confidence must not depend on which other labels were asked.
    const alone = await multi.classify('the team won the cup', { labels: ['sports'] });
    expect(alone[0]!.confidence).to.be.closeTo(labels.find((l) => l.label === 'sports')!.confidence, 1e-4);
  });

  it('batches concurrent requests with different label sets correctly', async () => {
    const [a, b] = await Promise.all([
      withDefaults.classify('hello', { labels: ['one'] }),
      withDefaults.classify('hello world', { labels: ['x', 'y', 'z', 'w'] }),
    ]);
    expect(a.map((l) => l.label)).to.deep.equal(['one']);
    expect(b.map((l) => l.label).sort()).to.deep.equal(['w', 'x', 'y', 'z']);
  });

  it('answers 400 when neither the manifest nor the request gives labels', async () => {
    let error: unknown;
    await multi.classify('hello').catch((caught) => (error = caught));
    expect((error as { status?: number })?.status).to.equal(400);
  });

  it('describes itself as accepting request labels', () => {
    expect(engine.describe!(entry(ID, 'transformers-zero-shot', { labels: ['a', 'b'] }))).to.deep.equal({
      labels: ['a', 'b'],
      multi_label: false,
      accepts_labels: true,
    });
  });
});
