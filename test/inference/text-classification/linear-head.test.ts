import { expect } from 'chai';
import { ManifestError } from '../../../src/inference/manifest.js';
import { embeddingClassifier } from '../../../src/inference/text-classification/embedding-classifier.js';
import { headConfidences, linearHead } from '../../../src/inference/text-classification/linear-head.js';
import { entry } from './fixture-models.js';

const withHead = (head: unknown) => entry('m', 'embedding-classifier', { labels: ['a', 'b'], head });
const checkedHead = (head: unknown) => embeddingClassifier.options.read(withHead(head)).head;

describe('linear head', () => {
  it('computes softmax(W·e + b) per label', () => {
    const head = linearHead(
      checkedHead({
        weights: [
          [1, 2],
          [0, -1],
        ],
        bias: [0.5, 0],
      }),
    )!;
    // logits: 1*0.3 + 2*0.4 + 0.5 = 1.6 and -0.4
    const [a, b] = headConfidences(head, Float32Array.from([0.3, 0.4]));
    expect(a).to.be.closeTo(1 / (1 + Math.exp(-2)), 1e-6);
    expect(a! + b!).to.be.closeTo(1, 1e-9);
  });

  it('makes the symmetric two-row form equal to the sigmoid of a binary logistic regression', () => {
    const w = [0.7, -1.2, 0.1];
    const e = Float32Array.from([0.5, 0.2, -0.9]);
    const head = linearHead(checkedHead({ weights: [w.map((v) => v / 2), w.map((v) => -v / 2)], bias: [0.15, -0.15] }))!;
    const z = w.reduce((sum, v, i) => sum + v * e[i]!, 0) + 0.3;
    expect(headConfidences(head, e)[0]).to.be.closeTo(1 / (1 + Math.exp(-z)), 1e-6);
  });

  it('is absent when the manifest has no head', () => {
    expect(linearHead(embeddingClassifier.options.read(entry('m', 'embedding-classifier', {})).head)).to.equal(undefined);
  });

  it('rejects heads that do not match the labels or are malformed', () => {
    const bad = [
      { weights: [[1, 2]], bias: [0] },
      { weights: [[1, 2], [3]], bias: [0, 0] },
      {
        weights: [
          [1, 2],
          [3, 'x'],
        ],
        bias: [0, 0],
      },
      {
        weights: [
          [1, 2],
          [3, 4],
        ],
        bias: [0],
      },
      { weights: 'none', bias: [0, 0] },
      null,
    ];
    for (const head of bad) expect(() => checkedHead(head), JSON.stringify(head)).to.throw(ManifestError, /options\.head/);
  });

  it('refuses an embedding of another width', () => {
    const head = linearHead(
      checkedHead({
        weights: [
          [1, 2],
          [3, 4],
        ],
        bias: [0, 0],
      }),
    )!;
    expect(() => headConfidences(head, new Float32Array(3))).to.throw(/expects 2/);
  });
});
