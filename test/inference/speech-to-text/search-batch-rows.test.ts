/**
 * SearchBatchRows and SearchStepsTogether over small stand-in caches: rows move to each window's
 * sources, padded to the widest window, cross-attention rows leave with their window, and one
 * run is made only once every window still searching has asked.
 */
import { Tensor as OrtTensor } from 'onnxruntime-node';
import { expect } from 'chai';
import { SearchBatchRows } from '../../../src/inference/speech-to-text/decoder/search-batch-rows.js';
import { SearchStepsTogether, type GroupStep } from '../../../src/inference/speech-to-text/decoder/search-steps-together.js';
import { SelfAttentionRows } from '../../../src/inference/speech-to-text/decoder/self-attention-rows.js';

/** A [rows, 1] tensor whose row i holds values[i]. */
const column = (values: readonly number[]) => new OrtTensor('float32', Float32Array.from(values), [values.length, 1]);
/** A self-attention cache [rows, 1 head, positions, 1] whose row i holds rows[i]. */
const cacheOf = (rows: readonly (readonly number[])[]) => new OrtTensor('float32', Float32Array.from(rows.flat()), [rows.length, 1, rows[0]!.length, 1]);
const rowsOf = (tensor: { data: unknown }) => [...(tensor.data as Float32Array)];

describe('SearchBatchRows', () => {
  const start = () => {
    const selfAttention = new SelfAttentionRows();
    selfAttention.update({ 'present.0.decoder.key': cacheOf([[10], [20], [30]]) });
    return new SearchBatchRows({ encoder: { 'past_key_values.0.encoder.key': column([1, 2, 3]) }, selfAttention }, column([1, 2, 3]));
  };

  it('grows each window’s one start row to its beams, padding the narrower window with its first row', () => {
    const rows = start();
    const input = rows.next([
      { sources: [0, 0, 0], tokens: [5, 6, 7] },
      { sources: [0, 0], tokens: [8, 9] },
      { sources: [0, 0, 0], tokens: [1, 2, 3] },
    ]);
    expect(input.tokens).to.deep.equal([5, 6, 7, 8, 9, 8, 1, 2, 3]);
    expect(rowsOf(input.past.selfAttention.past()['past_key_values.0.decoder.key']!)).to.deep.equal([10, 10, 10, 20, 20, 20, 30, 30, 30]);
    expect(rowsOf(input.past.encoder['past_key_values.0.encoder.key']!)).to.deep.equal([1, 2, 3]);
    const logits = new OrtTensor(
      'float32',
      Float32Array.from({ length: 9 }, (_, row) => row),
      [9, 1, 1],
    );
    expect(rows.split(logits).map((window) => window?.map((row) => row[0]))).to.deep.equal([
      [0, 1, 2],
      [3, 4],
      [6, 7, 8],
    ]);
  });

  it('drops a window that left, its cross-attention and audio rows too', () => {
    const rows = start();
    const first = rows.next([
      { sources: [0, 0], tokens: [1, 1] },
      { sources: [0, 0], tokens: [2, 2] },
      { sources: [0, 0], tokens: [3, 3] },
    ]);
    // The run read one position on each row (a decoder with step outputs).
    first.past.selfAttention.update({ 'step.0.decoder.key': cacheOf([[11], [12], [21], [22], [31], [32]]) });
    const input = rows.next([{ sources: [1, 0], tokens: [4, 5] }, undefined, { sources: [1, 1], tokens: [6, 7] }]);
    expect(rowsOf(input.past.selfAttention.past()['past_key_values.0.decoder.key']!)).to.deep.equal([10, 12, 10, 11, 30, 32, 30, 32]);
    expect(rowsOf(input.past.encoder['past_key_values.0.encoder.key']!)).to.deep.equal([1, 3]);
    expect(rowsOf(input.audio)).to.deep.equal([1, 3]);
    const split = rows.split(new OrtTensor('float32', Float32Array.from([0, 1, 2, 3]), [4, 1, 1]));
    expect(split[1]).to.equal(undefined);
  });
});

describe('SearchStepsTogether', () => {
  it('runs once every window still searching has asked, and without those that left', async () => {
    const runs: (GroupStep | undefined)[][] = [];
    const together = new SearchStepsTogether(3, async (steps) => {
      runs.push([...steps]);
      return steps.map((step) => step?.tokens.map((token) => Float32Array.of(token)));
    });
    const first = together.step(0, [0], [7]);
    together.leave(1);
    expect(runs).to.have.length(0);
    const third = together.step(2, [0, 0], [8, 9]);
    expect((await first).map((row) => row[0])).to.deep.equal([7]);
    expect((await third).map((row) => row[0])).to.deep.equal([8, 9]);
    expect(runs).to.have.length(1);
    expect(runs[0]![1]).to.equal(undefined);
  });

  it('fails every waiting window, and every later step, once one fails', async () => {
    const together = new SearchStepsTogether(2, async () => []);
    const waiting = together.step(0, [0], [1]);
    together.fail(new Error('cancelled'));
    let failure: unknown;
    await waiting.catch((error: unknown) => (failure = error));
    expect((failure as Error).message).to.equal('cancelled');
    let later: unknown;
    await together.step(1, [0], [1]).catch((error: unknown) => (later = error));
    expect((later as Error).message).to.equal('cancelled');
  });
});
