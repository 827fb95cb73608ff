/** Moving key/value cache rows between beam-search steps (cache-rows.ts), in place and grown. */
import { expect } from 'chai';
import { alikeRows, gatherRows } from '../../../src/inference/speech-to-text/decoder/cache-rows.js';

class FakeTensor {
  constructor(
    readonly type: string,
    readonly data: Float32Array,
    readonly dims: readonly number[],
  ) {}
}

/** Rows of two values each: row r holds [r, r + 0.5]. */
const tensor = (rows: number) =>
  new FakeTensor(
    'float32',
    Float32Array.from({ length: rows * 2 }, (_, index) => Math.floor(index / 2) + (index % 2) / 2),
    [rows, 2],
  );
const rowsOf = (out: { data: unknown; dims: readonly number[] }) => Array.from({ length: out.dims[0]! }, (_, row) => (out.data as Float32Array)[row * 2]);

describe('cache rows', () => {
  it('reorders rows in place: repeats, swaps and cycles read each source before it is overwritten', () => {
    for (const sources of [
      [1, 0, 2],
      [2, 2, 0],
      [1, 2, 0],
      [0, 0, 0],
      [2, 1],
    ]) {
      const out = gatherRows(tensor(3), sources);
      expect(rowsOf(out), JSON.stringify(sources)).to.deep.equal(sources);
      expect(out.dims).to.deep.equal([sources.length, 2]);
      expect((out.data as Float32Array)[1]).to.equal(sources[0]! + 0.5);
    }
  });

  it('returns the same tensor for the same rows, and a new buffer when the rows grow', () => {
    const same = tensor(2);
    expect(gatherRows(same, [0, 1])).to.equal(same);
    const grown = gatherRows(tensor(1), [0, 0, 0]);
    expect(rowsOf(grown)).to.deep.equal([0, 0, 0]);
  });

  it('repeats or views alike rows', () => {
    expect(rowsOf(alikeRows(tensor(1), 4))).to.deep.equal([0, 0, 0, 0]);
    const view = alikeRows(tensor(4), 2);
    expect(view.dims).to.deep.equal([2, 2]);
  });
});
