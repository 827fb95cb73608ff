import { expect } from 'chai';
import { batchRowBytes, searchBatchFits, searchWindowBytes, whisperBatchSize } from '../../../src/inference/speech-to-text/long-form/whisper-batch-size.js';

const TINY = { decoder_layers: 4, d_model: 384, vocab_size: 51_864 };
const LARGE_V3 = { decoder_layers: 32, d_model: 1280, vocab_size: 51_866 };

describe('whisperBatchSize', () => {
  it('estimates a row by its caches: tens of MB for tiny, about half a GB for large-v3', () => {
    expect(batchRowBytes(TINY) / 2 ** 20).to.be.within(20, 30);
    expect(batchRowBytes(LARGE_V3) / 2 ** 20).to.be.within(500, 650);
  });

  it('takes every waiting window when threads and memory allow', () => {
    expect(whisperBatchSize({ windows: 5, threads: 2, dims: TINY })).to.equal(5);
  });

  it('grows with the threads', () => {
    expect(whisperBatchSize({ windows: 100, threads: 2, dims: TINY })).to.equal(16);
    expect(whisperBatchSize({ windows: 100, threads: 8, dims: TINY })).to.equal(64);
  });

  it('stays within the memory budget, and decodes a window alone when even one row is over it', () => {
    expect(whisperBatchSize({ windows: 100, threads: 8, dims: LARGE_V3, memoryBudgetBytes: 2 * 2 ** 30 })).to.equal(3);
    expect(whisperBatchSize({ windows: 100, threads: 8, dims: LARGE_V3, memoryBudgetBytes: 2 ** 20 })).to.equal(1);
  });

  it('is 1 for a single window', () => {
    expect(whisperBatchSize({ windows: 1, threads: 16, dims: TINY })).to.equal(1);
  });
});

describe('searchBatchFits', () => {
  const MIB = 2 ** 20;

  it('counts a window’s cross-attention cache once, however many beams share it', () => {
    const oneBeam = searchWindowBytes(TINY, 1);
    expect(oneBeam / MIB).to.be.within(20, 30);
    expect((searchWindowBytes(TINY, 5) - oneBeam) / MIB).to.be.within(4 * 5, 4 * 6); // ~5.5 MiB a further row
  });

  it('holds 25 rows a thread: five windows of 5 beams on one thread, not six', () => {
    const fits = searchBatchFits({ threads: 1, dims: TINY });
    expect(fits(5, 5)).to.equal(true);
    expect(fits(6, 5)).to.equal(false);
    expect(searchBatchFits({ threads: 2, dims: TINY })(10, 5)).to.equal(true);
  });

  it('stays within the memory budget: five windows of 5 beams of tiny in the default 256 MiB, none of large-v3', () => {
    expect(searchBatchFits({ threads: 2, dims: TINY, memoryBudgetBytes: 256 * MIB })(5, 5)).to.equal(true);
    expect(searchBatchFits({ threads: 2, dims: TINY, memoryBudgetBytes: 256 * MIB })(6, 5)).to.equal(false);
    expect(searchBatchFits({ threads: 8, dims: LARGE_V3, memoryBudgetBytes: 256 * MIB })(2, 5)).to.equal(false);
    expect(searchBatchFits({ threads: 2, dims: TINY, memoryBudgetBytes: 0 })(2, 2)).to.equal(false);
  });
});
