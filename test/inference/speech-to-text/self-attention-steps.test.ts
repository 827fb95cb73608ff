/**
 * addSelfAttentionSteps on the real whisper-tiny.en decoder graph (skipped when not installed: `npm
 * run test-models`): onnxruntime opens the rewrite, whose logits are the original graph's and
 * whose step outputs are the positions a run read, the tail of the present cache the original
 * gives (all of it on the first pass); joined on the q8 graph, bit for bit the original's; a graph
 * of another shape is left as it is.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import * as ort from 'onnxruntime-node';
import { addSelfAttentionSteps } from '../../../src/inference/speech-to-text/graph/self-attention-steps.js';
import { REPO_ROOT } from '../../audio/audio-test-helpers.js';
import { tinyEnAvailable } from './tiny-en-window-decoder.js';

const ONNX_DIR = join(REPO_ROOT, 'models', 'whisper-tiny.en', 'onnx');
const HEADS = 6;
const SIZE = 64;
const LAYERS = 4;

describe('addSelfAttentionSteps (whisper-tiny.en graph)', function () {
  this.timeout(120_000);
  let original: ort.InferenceSession;
  let stepped: ort.InferenceSession;

  before(async function () {
    if (!tinyEnAvailable()) this.skip(); // run `npm run test-models` to include it
    const file = join(ONNX_DIR, 'decoder_model_merged.onnx');
    const rewrite = addSelfAttentionSteps(readFileSync(file));
    expect(rewrite.outputs).to.equal(2 * LAYERS);
    const options = { intraOpNumThreads: 1, extra: { session: { model_external_initializers_file_folder_path: ONNX_DIR } } };
    [original, stepped] = await Promise.all([ort.InferenceSession.create(file, { intraOpNumThreads: 1 }), ort.InferenceSession.create(rewrite.model, options)]);
  });
  after(async () => {
    await original?.release();
    await stepped?.release();
  });

  const float = (dims: number[], seed: number) => {
    // A loop, not Float32Array.from with a map function: tens of millions of values a test.
    const data = new Float32Array(dims.reduce((a, b) => a * b));
    for (let index = 0; index < data.length; index++) data[index] = Math.sin(index * 0.37 + seed) * 0.5;
    return new ort.Tensor('float32', data, dims);
  };
  /** Feeds for `rows` rows reading `tokens` each after `past` positions (0: the first pass, no cache). */
  const feeds = (rows: number, tokens: number, past: number) => {
    const input: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor(
        'int64',
        BigInt64Array.from({ length: rows * tokens }, (_, index) => BigInt(100 + index)),
        [rows, tokens],
      ),
      encoder_hidden_states: float([rows, 1500, HEADS * SIZE], 1),
      use_cache_branch: new ort.Tensor('bool', Uint8Array.of(past > 0 ? 1 : 0), [1]),
    };
    for (let layer = 0; layer < LAYERS; layer++) {
      for (const part of ['key', 'value']) {
        input[`past_key_values.${layer}.decoder.${part}`] = float([rows, HEADS, past, SIZE], layer + 2);
        input[`past_key_values.${layer}.encoder.${part}`] = float([rows, HEADS, 1500, SIZE], layer + 7);
      }
    }
    return input;
  };
  /** The rewrite's feeds for the same run: no shared positions, or the first `shared` of a past every row holds alike. */
  const splitFeeds = (input: Record<string, ort.Tensor>, shared = 0) => {
    const out: Record<string, ort.Tensor> = { ...input };
    for (const [name, tensor] of Object.entries(input)) {
      if (!name.includes('.decoder.')) continue;
      const [rows, heads, length, size] = tensor.dims as [number, number, number, number];
      const data = tensor.data as Float32Array;
      const part = (from: number, to: number, rowCount: number) => {
        const values: number[] = [];
        for (let row = 0; row < rowCount; row++)
          for (let head = 0; head < heads; head++)
            values.push(...data.subarray(((row * heads + head) * length + from) * size, ((row * heads + head) * length + to) * size));
        return new ort.Tensor('float32', Float32Array.from(values), [rowCount, heads, to - from, size]);
      };
      out[name.replace('past_key_values.', 'shared.')] = part(0, shared, 1);
      out[name] = part(shared, length, rows);
    }
    return out;
  };
  /** `input` with every row's first `shared` positions of the past made row 0's. */
  const alike = (input: Record<string, ort.Tensor>, shared: number) => {
    const out: Record<string, ort.Tensor> = { ...input };
    for (const [name, tensor] of Object.entries(input)) {
      if (!name.includes('.decoder.')) continue;
      const [rows, heads, length, size] = tensor.dims as [number, number, number, number];
      const data = (tensor.data as Float32Array).slice();
      for (let row = 1; row < rows; row++)
        for (let head = 0; head < heads; head++) data.copyWithin((row * heads + head) * length * size, head * length * size, (head * length + shared) * size);
      out[name] = new ort.Tensor('float32', data, tensor.dims);
    }
    return out;
  };
  const largestDifference = (values: Float32Array, expected: ArrayLike<number>) => {
    expect(values.length).to.equal(expected.length);
    return values.reduce((largest, value, index) => Math.max(largest, Math.abs(value - expected[index]!)), 0);
  };
  const names = (prefix: string) => Array.from({ length: LAYERS }, (_, layer) => ['key', 'value'].map((part) => `${prefix}.${layer}.decoder.${part}`)).flat();

  it('gives the whole present cache on the first pass, and the positions read after a past', async () => {
    for (const [rows, tokens, past] of [
      [2, 3, 0],
      [3, 1, 5],
      [1, 4, 7],
    ] as const) {
      const input = feeds(rows, tokens, past);
      const [before, after] = await Promise.all([
        original.run(input, ['logits', ...names('present')]),
        stepped.run(splitFeeds(input), ['logits', ...names('step')]),
      ]);
      // The attention's sum is split in two (past, new): equal but for float rounding.
      expect(largestDifference(after.logits!.data as Float32Array, before.logits!.data as Float32Array)).to.be.below(1e-4);
      expect(stepped.outputNames.some((name) => name.startsWith('present.') && name.includes('.decoder.'))).to.equal(false);
      for (const name of names('present')) {
        const present = before[name]!;
        const step = after[name.replace('present', 'step')]!;
        expect(step.dims).to.deep.equal([rows, HEADS, tokens, SIZE]);
        const full = present.data as Float32Array;
        const tail: number[] = [];
        for (let head = 0; head < rows * HEADS; head++)
          tail.push(...full.subarray((head * (past + tokens) + past) * SIZE, (head + 1) * (past + tokens) * SIZE));
        // Layers after the first read hidden states rounded as the split sum rounds them.
        expect(largestDifference(step.data as Float32Array, tail)).to.be.below(1e-4);
      }
    }
  });

  it('reads positions every row shares from one row of shared.N.decoder.*, as if each row held them', async () => {
    const input = alike(feeds(3, 1, 9), 6);
    const [before, after] = await Promise.all([original.run(input, ['logits']), stepped.run(splitFeeds(input, 6), ['logits', ...names('step')])]);
    expect(largestDifference(after.logits!.data as Float32Array, before.logits!.data as Float32Array)).to.be.below(1e-4);
    expect(after['step.0.decoder.key']!.dims).to.deep.equal([3, HEADS, 1, SIZE]);
  });

  it("joined on the q8 graph: logits and new positions bit for bit the original's, shared positions too", async () => {
    const file = join(ONNX_DIR, 'decoder_model_merged_quantized.onnx');
    const rewrite = addSelfAttentionSteps(readFileSync(file), { joined: true });
    expect(rewrite.outputs).to.equal(2 * LAYERS);
    const options = { intraOpNumThreads: 1, extra: { session: { model_external_initializers_file_folder_path: ONNX_DIR } } };
    const [q8, joined] = await Promise.all([ort.InferenceSession.create(file, { intraOpNumThreads: 1 }), ort.InferenceSession.create(rewrite.model, options)]);
    try {
      for (const [rows, tokens, past, shared] of [
        [2, 3, 0, 0],
        [3, 1, 5, 0],
        [1, 4, 7, 0],
        [3, 1, 9, 6],
      ] as const) {
        const input = alike(feeds(rows, tokens, past), shared);
        const [before, after] = await Promise.all([
          q8.run(input, ['logits', ...names('present')]),
          joined.run(splitFeeds(input, shared), ['logits', ...names('step')]),
        ]);
        expect(largestDifference(after.logits!.data as Float32Array, before.logits!.data as Float32Array)).to.equal(0);
        for (const name of names('present')) {
          const full = before[name]!.data as Float32Array;
          const tail: number[] = [];
          for (let head = 0; head < rows * HEADS; head++)
            tail.push(...full.subarray((head * (past + tokens) + past) * SIZE, (head + 1) * (past + tokens) * SIZE));
          expect(largestDifference(after[name.replace('present', 'step')]!.data as Float32Array, tail)).to.equal(0);
        }
      }
    } finally {
      await q8.release();
      await joined.release();
    }
  });

  it('leaves a graph of another shape as it is', () => {
    const encoder = readFileSync(join(ONNX_DIR, 'encoder_model.onnx'));
    const rewrite = addSelfAttentionSteps(encoder);
    expect(rewrite.outputs).to.equal(0);
    expect(rewrite.model).to.equal(encoder);
  });
});
