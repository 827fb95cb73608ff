/** OpenAI's `dimensions` on any vector: the head, back to unit length. */
import { expect } from 'chai';
import { shortenEmbedding } from '../../../src/inference/embeddings/shorten-embedding.js';

describe('shortenEmbedding', () => {
  it('keeps the first values, scaled to unit length, and leaves the vector it was given alone', () => {
    const full = Float32Array.from([0.6, 0, 0, 0.8]);
    expect(Array.from(shortenEmbedding(full, 2))).to.deep.equal([1, 0]);
    expect(Array.from(shortenEmbedding(full, 1))).to.deep.equal([1]);
    expect(Array.from(full)).to.deep.equal(Array.from(Float32Array.from([0.6, 0, 0, 0.8])));
  });

  it('returns the vector itself at its full width, and zeros (not NaN) for a head of zeros', () => {
    const full = Float32Array.from([0, 0, 1]);
    expect(shortenEmbedding(full, 3)).to.equal(full);
    expect(Array.from(shortenEmbedding(full, 2))).to.deep.equal([0, 0]);
  });
});
