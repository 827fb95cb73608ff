import { expect } from 'chai';
import { AutoTokenizer, Tensor } from '@huggingface/transformers';
import { resolve } from 'node:path';
import { encodeTexts, paddedInputs, selectRows, tokenCounts } from '../../../src/inference/sentence-encoder/model-io.js';

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

describe('model-io inputs built from token ids', () => {
  const texts = [
    'a gorgeous , witty , seductive movie .',
    "it 's a charming and often affecting journey .",
    'Ünïcödé, émojis 🙂 and   extra   spaces\tand tabs',
    '',
    'unaffable pseudo-intellectual overwrought melodramatics',
  ];
  const load = () => AutoTokenizer.from_pretrained(resolve('test/fixtures/models/minilm-random'));

  it('match what the tokenizer call makes, one text or a padded batch', async () => {
    const tokenizer = await load();
    const padding = { inputNames: Object.keys(tokenizer('a')), padId: tokenizer.pad_token_id, side: 'right' as const };
    for (const batch of [...texts.map((text) => [text]), texts]) {
      const expected = tokenizer(batch, { padding: true, truncation: true, max_length: 256 }) as Record<string, Tensor>;
      const ids = encodeTexts(tokenizer, batch, 256)!;
      const built = paddedInputs(
        ids,
        batch.map((_, row) => row),
        padding,
      );
      expect(Object.keys(built)).to.deep.equal(Object.keys(expected));
      for (const name of padding.inputNames) {
        expect(built[name]!.dims, `${name} of ${JSON.stringify(batch)}`).to.deep.equal(expected[name]!.dims);
        expect(values(built[name]!), `${name} of ${JSON.stringify(batch)}`).to.deep.equal(values(expected[name]!));
      }
    }
  });

  it('pad only the chosen rows, to the longest of them, on the padding side', () => {
    const ids = [
      [101, 7, 102],
      [101, 102],
      [101, 5, 6, 7, 8, 102],
    ];
    const inputNames = ['input_ids', 'attention_mask', 'token_type_ids'];
    const right = paddedInputs(ids, [1, 0], { inputNames, padId: 0, side: 'right' });
    expect(values(right.input_ids!)).to.deep.equal([
      [101, 102, 0],
      [101, 7, 102],
    ]);
    expect(values(right.attention_mask!)).to.deep.equal([
      [1, 1, 0],
      [1, 1, 1],
    ]);
    expect(values(right.token_type_ids!)).to.deep.equal([
      [0, 0, 0],
      [0, 0, 0],
    ]);
    const left = paddedInputs(ids, [0, 1], { inputNames, padId: 9, side: 'left' });
    expect(values(left.input_ids!)).to.deep.equal([
      [101, 7, 102],
      [9, 101, 102],
    ]);
    expect(values(left.attention_mask!)).to.deep.equal([
      [1, 1, 1],
      [0, 1, 1],
    ]);
  });

  it('leave a batch with a text longer than the limit to the tokenizer, which truncates it', async () => {
    const tokenizer = await load();
    const text = 'word '.repeat(20);
    expect(encodeTexts(tokenizer, ['short', text], 8)).to.equal(undefined);
    expect(encodeTexts(tokenizer, ['short', text], tokenizer.encode(text).length)).to.have.length(2);
  });
});
