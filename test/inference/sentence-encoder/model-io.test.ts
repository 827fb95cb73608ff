import { expect } from 'chai';
import { Tensor } from '@huggingface/transformers';
import { selectRows, tokenCounts } from '../../../src/inference/sentence-encoder/model-io.js';

const int64 = (rows: number[][]) => new Tensor('int64', BigInt64Array.from(rows.flat(), BigInt), [rows.length, rows[0]!.length]);
const values = (tensor: Tensor) => {
  const [batch, width] = tensor.dims as [number, number];
  const data = [...(tensor.data as BigInt64Array)].map(Number);
  return Array.from({ length: batch }, (_, row) => data.slice(row * width, (row + 1) * width));
};

describe('model-io row selection (one tokenisation per micro-batch)', () => {
  it('counts the real tokens of each row of an attention mask', () => {
    expect(
      tokenCounts(
        int64([
          [1, 1, 1, 0],
          [1, 0, 0, 0],
          [1, 1, 1, 1],
        ]),
      ),
    ).to.deep.equal([3, 1, 4]);
  });

  it('takes the chosen rows of every input, cut to the width, from the left when padding is on the right', () => {
    const inputs = {
      input_ids: int64([
        [5, 6, 7, 0],
        [8, 0, 0, 0],
        [1, 2, 3, 4],
      ]),
      attention_mask: int64([
        [1, 1, 1, 0],
        [1, 0, 0, 0],
        [1, 1, 1, 1],
      ]),
    };
    const selected = selectRows(inputs, [1, 0], 3, 'right');
    expect(values(selected.input_ids!)).to.deep.equal([
      [8, 0, 0],
      [5, 6, 7],
    ]);
    expect(values(selected.attention_mask!)).to.deep.equal([
      [1, 0, 0],
      [1, 1, 1],
    ]);
  });

  it('keeps the right-hand end of each row when padding is on the left', () => {
    const inputs = {
      input_ids: int64([
        [0, 5, 6, 7],
        [0, 0, 0, 8],
      ]),
    };
    expect(values(selectRows(inputs, [0, 1], 3, 'left').input_ids!)).to.deep.equal([
      [5, 6, 7],
      [0, 0, 8],
    ]);
  });
});

describe('model-io pooling', () => {
  it('takes the first token of each row for CLS pooling, L2-normalised', async () => {
    const { clsPooledRows } = await import('../../../src/inference/sentence-encoder/model-io.js');
    // [batch 2, length 2, size 2]: row 0 starts with (3, 4), row 1 with (0, -2).
    const hidden = new Tensor('float32', Float32Array.from([3, 4, 9, 9, 0, -2, 7, 7]), [2, 2, 2]);
    expect(clsPooledRows(hidden).map((row) => Array.from(row))).to.deep.equal([
      [0.6000000238418579, 0.800000011920929],
      [0, -1],
    ]);
  });
});
