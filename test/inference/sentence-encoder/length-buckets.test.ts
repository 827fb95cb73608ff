import { expect } from 'chai';
import { lengthBuckets } from '../../../src/inference/sentence-encoder/length-buckets.js';

describe('lengthBuckets', () => {
  const options = { runTokens: 10, maxBucketSize: 32 };

  it('keeps texts of equal length in one bucket', () => {
    expect(lengthBuckets([10, 10, 10], options)).to.deep.equal([[0, 1, 2]]);
  });

  it('separates a long text from short ones when the padding saved outweighs a run', () => {
    const lengths = [60, 10, 12, 11, 58];
    // Together: 10 + 5 × 60 = 310 tokens' worth; split: 10 + 3 × 12 + 10 + 2 × 60 = 176.
    expect(lengthBuckets(lengths, options)).to.deep.equal([
      [1, 3, 2],
      [4, 0],
    ]);
  });

  it('keeps nearly equal lengths together when splitting saves less than a run costs', () => {
    // Together: 10 + 4 × 21 = 94; split at 20 | 21: 10 + 2 × 20 + 10 + 2 × 21 = 102.
    expect(lengthBuckets([20, 21, 20, 21], options)).to.deep.equal([[0, 2, 1, 3]]);
  });

  it('splits where the total cost is least, not at the first gap', () => {
    // Sorted 10 10 10 30 30 31: cheapest is {10 10 10} {30 30 31} (10 + 30 + 10 + 93 = 143).
    expect(lengthBuckets([30, 10, 31, 10, 30, 10], options)).to.deep.equal([
      [1, 3, 5],
      [0, 4, 2],
    ]);
  });

  it('covers every index exactly once and respects maxBucketSize', () => {
    const lengths = Array.from({ length: 100 }, (_, i) => 5 + (i % 7));
    const buckets = lengthBuckets(lengths, { runTokens: 1000, maxBucketSize: 16 });
    expect(buckets.flat().sort((a, b) => a - b)).to.deep.equal(lengths.map((_, i) => i));
    for (const bucket of buckets) expect(bucket.length).to.be.at.most(16);
  });

  it('returns no buckets for no texts', () => {
    expect(lengthBuckets([], options)).to.deep.equal([]);
  });
});
