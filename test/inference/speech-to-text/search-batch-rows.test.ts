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
  /** A run that answers each row with its token. */
  const echo = (runs: (GroupStep | undefined)[][]) => async (steps: readonly (GroupStep | undefined)[]) => {
    runs.push([...steps]);
    return steps.map((step) => step?.tokens.map((token) => Float32Array.of(token)));
  };

  it('runs once every window still searching has asked, and without those that ended', async () => {
    const runs: (GroupStep | undefined)[][] = [];
    const together = new SearchStepsTogether(3, echo(runs));
    let firstStep!: Promise<Float32Array[]>;
    const first = together.search(0, (step) => {
      firstStep = step([0], [7]);
      return firstStep;
    });
    const second = together.search(1, async () => 'done');
    expect(runs).to.have.length(0);
    const third = together.search(2, (step) => step([0, 0], [8, 9]));
    expect((await first).map((row) => row[0])).to.deep.equal([7]);
    expect((await third).map((row) => row[0])).to.deep.equal([8, 9]);
    expect(await second).to.equal('done');
    expect(runs).to.have.length(1);
    expect(runs[0]![1]).to.equal(undefined);
  });

  it('a search that ends early without ever asking does not stall the others', async () => {
    const runs: (GroupStep | undefined)[][] = [];
    const together = new SearchStepsTogether(3, echo(runs));
    const searching = (group: number) =>
      together.search(group, async (step) => {
        const got: number[] = [];
        for (let token = 0; token < 3; token++) got.push((await step([0], [group * 10 + token]))[0]![0]!);
        return got;
      });
    // Group 1 waits on something else first, then returns having asked nothing.
    const early = together.search(1, () => new Promise<string>((resolve) => setTimeout(() => resolve('nothing to decode'), 20)));
    const [zero, two] = await Promise.all([searching(0), searching(2)]);
    expect(zero).to.deep.equal([0, 1, 2]);
    expect(two).to.deep.equal([20, 21, 22]);
    expect(await early).to.equal('nothing to decode');
    expect(runs).to.have.length(3);
    expect(runs.every((steps) => steps[1] === undefined)).to.equal(true);
  });

  it('fails every waiting window, and every later step, once one search fails', async () => {
    const together = new SearchStepsTogether(3, async () => []);
    const waiting = together.search(0, (step) => step([0], [1]));
    const failing = together.search(1, async () => {
      throw new Error('cancelled');
    });
    const failures = await Promise.allSettled([waiting, failing]);
    expect(failures.map((failure) => failure.status === 'rejected' && (failure.reason as Error).message)).to.deep.equal(['cancelled', 'cancelled']);
    let later: unknown;
    await together.search(2, (step) => step([0], [1])).catch((error: unknown) => (later = error));
    expect((later as Error).message).to.equal('cancelled');
  });
});
