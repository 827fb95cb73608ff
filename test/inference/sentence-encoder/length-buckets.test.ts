import { expect } from 'chai';
import { lengthBuckets } from '../../../src/inference/sentence-encoder/length-buckets.js';

describe('lengthBuckets', () => {
  const options = { maxPaddingRatio: 1.25, maxBucketSize: 32 };

  it('keeps texts of equal length in one bucket', () => {
    expect(lengthBuckets([10, 10, 10], options)).to.deep.equal([[0, 1, 2]]);
  });

  it('separates a long text from short ones, so padding stays within the ratio', () => {
    const lengths = [60, 10, 12, 11, 58];
    const buckets = lengthBuckets(lengths, options);
    expect(buckets).to.deep.equal([
      [1, 3, 2],
      [4, 0],
    ]);
    for (const bucket of buckets) {
      const real = bucket.reduce((sum, index) => sum + lengths[index]!, 0);
      const padded = bucket.length * Math.max(...bucket.map((index) => lengths[index]!));
      expect(padded).to.be.at.most(1.25 * real);
    }
  });

  it('covers every index exactly once and respects maxBucketSize', () => {
    const lengths = Array.from({ length: 100 }, (_, i) => 5 + (i % 7));
    const buckets = lengthBuckets(lengths, { maxPaddingRatio: 10, maxBucketSize: 16 });
    expect(buckets.flat().sort((a, b) => a - b)).to.deep.equal(lengths.map((_, i) => i));
    for (const bucket of buckets) expect(bucket.length).to.be.at.most(16);
  });

  it('returns no buckets for no texts', () => {
    expect(lengthBuckets([], options)).to.deep.equal([]);
  });
});
