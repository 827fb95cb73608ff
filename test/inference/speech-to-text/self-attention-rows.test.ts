/**
 * SelfAttentionRows over small stand-in caches: a run's step outputs are appended to the rows it
 * read, each next row taken from its source, in two buffers used in turn; a run's whole present
 * cache replaces the rows.
 */
import { Tensor as OrtTensor } from 'onnxruntime-node';
import { expect } from 'chai';
import { SelfAttentionRows } from '../../../src/inference/speech-to-text/decoder/self-attention-rows.js';

/** [rows, heads, positions, 1]: rows[r][h] lists head h's positions of row r. */
const cacheOf = (rows: readonly (readonly (readonly number[])[])[]) =>
  new OrtTensor('float32', Float32Array.from(rows.flat(2)), [rows.length, rows[0]!.length, rows[0]![0]!.length, 1]);
const KEY = 'past_key_values.0.decoder.key';
const valuesOf = (rows: SelfAttentionRows, sources?: number[]) => {
  const tensor = rows.past(sources)[KEY]!;
  return { dims: [...tensor.dims], data: [...(tensor.data as Float32Array)] };
};

describe('SelfAttentionRows', () => {
  it('gives the rows as they are while nothing moves, and a present cache replaces them', () => {
    const rows = new SelfAttentionRows();
    const present = cacheOf([[[1, 2]], [[3, 4]]]);
    rows.update({ 'present.0.decoder.key': present, logits: cacheOf([[[9]]]) });
    expect(rows.rows).to.equal(2);
    expect(rows.past()[KEY]).to.equal(present);
    expect(rows.past([0, 1])[KEY]).to.equal(present);
    rows.update({ 'present.0.decoder.key': cacheOf([[[5, 6, 7]]]) });
    expect(valuesOf(rows)).to.deep.equal({ dims: [1, 1, 3, 1], data: [5, 6, 7] });
  });

  it('appends each run’s new positions per head, every next row from its source (repeated, reordered or dropped)', () => {
    const rows = new SelfAttentionRows();
    // Two rows, two heads, two positions each.
    rows.update({
      'step.0.decoder.key': cacheOf([
        [
          [1, 2],
          [3, 4],
        ],
        [
          [5, 6],
          [7, 8],
        ],
      ]),
    });
    expect(valuesOf(rows, [1, 1, 0])).to.deep.equal({ dims: [3, 2, 2, 1], data: [5, 6, 7, 8, 5, 6, 7, 8, 1, 2, 3, 4] });
    rows.update({
      'step.0.decoder.key': cacheOf([
        [[10], [11]],
        [[20], [21]],
        [[30], [31]],
      ]),
    });
    expect(valuesOf(rows, [2, 0])).to.deep.equal({ dims: [2, 2, 3, 1], data: [1, 2, 30, 3, 4, 31, 5, 6, 10, 7, 8, 11] });
    // A prompt chunk: several positions in one run.
    rows.update({
      'step.0.decoder.key': cacheOf([
        [
          [40, 41],
          [42, 43],
        ],
        [
          [50, 51],
          [52, 53],
        ],
      ]),
    });
    expect(valuesOf(rows)).to.deep.equal({ dims: [2, 2, 5, 1], data: [1, 2, 30, 40, 41, 3, 4, 31, 42, 43, 5, 6, 10, 50, 51, 7, 8, 11, 52, 53] });
    expect(() => rows.past([2])).to.throw(RangeError);
  });

  it('shares one row’s positions among every row from then on: each row holds and moves only its own', () => {
    const rows = new SelfAttentionRows();
    rows.update({ 'step.0.decoder.key': cacheOf([[[1, 2, 3]]]) });
    rows.share();
    const first = rows.past([0, 0]);
    expect([...first['shared.0.decoder.key']!.dims]).to.deep.equal([1, 1, 3, 1]);
    expect([...(first['shared.0.decoder.key']!.data as Float32Array)]).to.deep.equal([1, 2, 3]);
    expect([...first[KEY]!.dims]).to.deep.equal([2, 1, 0, 1]);
    rows.update({ 'step.0.decoder.key': cacheOf([[[7]], [[8]]]) });
    const next = rows.past([1, 1, 0]);
    expect(valuesOf(rows, [0, 1, 2])).to.deep.equal({ dims: [3, 1, 1, 1], data: [8, 8, 7] });
    expect(next['shared.0.decoder.key']).to.equal(first['shared.0.decoder.key']);
    expect(() => rows.share()).to.throw(RangeError);
  });

  it('keeps the shared positions when they were appended in its buffers (a prompt read in several runs)', () => {
    const rows = new SelfAttentionRows();
    rows.update({ 'step.0.decoder.key': cacheOf([[[1, 2]]]) });
    rows.update({ 'step.0.decoder.key': cacheOf([[[3]]]) });
    rows.share();
    for (let run = 0; run < 4; run++) {
      const past = rows.past([0, 0, 0]);
      expect([...(past['shared.0.decoder.key']!.data as Float32Array)]).to.deep.equal([1, 2, 3]);
      rows.update({ 'step.0.decoder.key': cacheOf([[[10 + run]], [[20 + run]], [[30 + run]]]) });
    }
  });

  it('writes each run’s rows into the buffer the current rows are not in, the same two run after run', () => {
    const rows = new SelfAttentionRows();
    rows.update({ 'step.0.decoder.key': cacheOf([[[1]], [[2]]]) });
    const buffers: ArrayBufferLike[] = [];
    for (let run = 0; run < 6; run++) {
      const past = rows.past([1, 0])[KEY]!;
      buffers.push((past.data as Float32Array).buffer);
      rows.update({ 'step.0.decoder.key': cacheOf([[[run]], [[run]]]) });
    }
    expect(new Set(buffers).size).to.equal(2);
    expect(buffers[0]).to.not.equal(buffers[1]);
    expect(buffers[2]).to.equal(buffers[0]);
  });
});
