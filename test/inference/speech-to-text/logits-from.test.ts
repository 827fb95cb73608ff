/**
 * addLogitsFrom on the real whisper-tiny.en decoder graph (skipped when not installed: `npm run
 * test-models`): from 0 the logits are the original graph's, from a later token only those
 * tokens', and from the number of tokens read none, fp32 and q8; a graph of another shape is left as it is.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import * as ort from 'onnxruntime-node';
import { addLogitsFrom } from '../../../src/inference/speech-to-text/graph/logits-from.js';
import { LOGITS_FROM } from '../../../src/inference/speech-to-text/graph/rewrite-contract.js';
import { REPO_ROOT } from '../../audio/audio-test-helpers.js';
import { tinyEnAvailable } from './tiny-en-window-decoder.js';
import { expectSameFloats } from '../../helpers/same-floats.js';

const ONNX_DIR = join(REPO_ROOT, 'models', 'whisper-tiny.en', 'onnx');
const VOCAB = 51_864;

describe('addLogitsFrom (whisper-tiny.en graph)', function () {
  this.timeout(120_000);
  let original: ort.InferenceSession;
  let sliced: ort.InferenceSession;

  before(async function () {
    if (!tinyEnAvailable()) this.skip(); // run `npm run test-models` to include it
    const file = join(ONNX_DIR, 'decoder_model_merged.onnx');
    const rewrite = addLogitsFrom(readFileSync(file));
    expect(rewrite.added).to.equal(true);
    const options = { intraOpNumThreads: 1, extra: { session: { model_external_initializers_file_folder_path: ONNX_DIR } } };
    [original, sliced] = await Promise.all([ort.InferenceSession.create(file, { intraOpNumThreads: 1 }), ort.InferenceSession.create(rewrite.model, options)]);
    expect(sliced.inputNames).to.include(LOGITS_FROM);
  });
  after(async () => {
    await original?.release();
    await sliced?.release();
  });

  /** Feeds for 2 rows reading 4 tokens each after `past` positions. */
  const feeds = (past: number) => {
    const float = (dims: number[]) => {
      // A loop, not Float32Array.from with a map function: millions of values a tensor.
      const data = new Float32Array(dims.reduce((a, b) => a * b));
      for (let i = 0; i < data.length; i++) data[i] = Math.cos(i * 0.11) * 0.4;
      return new ort.Tensor('float32', data, dims);
    };
    const input: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor('int64', BigInt64Array.of(50257n, 50362n, 400n, 401n, 50257n, 50362n, 500n, 501n), [2, 4]),
      encoder_hidden_states: float([2, 1500, 384]),
      use_cache_branch: new ort.Tensor('bool', Uint8Array.of(past > 0 ? 1 : 0), [1]),
    };
    for (let layer = 0; layer < 4; layer++) {
      for (const part of ['key', 'value']) {
        input[`past_key_values.${layer}.decoder.${part}`] = float([2, 6, past, 64]);
        input[`past_key_values.${layer}.encoder.${part}`] = float([2, 6, 1500, 64]);
      }
    }
    return input;
  };
  const from = (first: number) => ({ [LOGITS_FROM]: new ort.Tensor('int64', BigInt64Array.of(BigInt(first)), [1]) });

  it('gives the logits from the token asked on, in either branch', async () => {
    for (const past of [0, 3]) {
      // Built once per branch: ~10 M cosines a set, and onnxruntime only reads its inputs.
      const inputs = feeds(past);
      const { logits: all } = await original.run(inputs, ['logits']);
      const { logits: whole } = await sliced.run({ ...inputs, ...from(0) }, ['logits']);
      expect(whole!.dims).to.deep.equal([2, 4, VOCAB]);
      expectSameFloats(whole!.data as Float32Array, all!.data as Float32Array, 'logits from 0');
      const { logits: last } = await sliced.run({ ...inputs, ...from(3) }, ['logits']);
      expect(last!.dims).to.deep.equal([2, 1, VOCAB]);
      const data = all!.data as Float32Array;
      const lastOfEachRow = new Float32Array(2 * VOCAB);
      lastOfEachRow.set(data.subarray(3 * VOCAB, 4 * VOCAB));
      lastOfEachRow.set(data.subarray(7 * VOCAB, 8 * VOCAB), VOCAB);
      expectSameFloats(last!.data as Float32Array, lastOfEachRow, 'logits from 3');
      const { logits: none } = await sliced.run({ ...inputs, ...from(4) }, ['logits']);
      expect(none!.dims).to.deep.equal([2, 0, VOCAB]);
    }
  });

  it("slices q8 logits before their quantizer: from 0 the original graph's, later only those tokens', from the count none", async () => {
    const file = join(ONNX_DIR, 'decoder_model_merged_quantized.onnx');
    const rewrite = addLogitsFrom(readFileSync(file));
    expect(rewrite.added).to.equal(true);
    const options = { intraOpNumThreads: 1, extra: { session: { model_external_initializers_file_folder_path: ONNX_DIR } } };
    const [q8, q8Sliced] = await Promise.all([
      ort.InferenceSession.create(file, { intraOpNumThreads: 1 }),
      ort.InferenceSession.create(rewrite.model, options),
    ]);
    try {
      const inputs = feeds(3);
      const { logits: all } = await q8.run(inputs, ['logits']);
      const { logits: whole } = await q8Sliced.run({ ...inputs, ...from(0) }, ['logits']);
      expectSameFloats(whole!.data as Float32Array, all!.data as Float32Array, 'q8 logits from 0');
      // Quantized over the last tokens only, as a prompt read in runs of its own left them.
      expect((await q8Sliced.run({ ...inputs, ...from(3) }, ['logits'])).logits!.dims).to.deep.equal([2, 1, VOCAB]);
      expect((await q8Sliced.run({ ...inputs, ...from(4) }, ['logits'])).logits!.dims).to.deep.equal([2, 0, VOCAB]);
    } finally {
      await q8.release();
      await q8Sliced.release();
    }
  });

  it('leaves a graph of another shape as it is', () => {
    const encoder = readFileSync(join(ONNX_DIR, 'encoder_model.onnx'));
    expect(addLogitsFrom(encoder)).to.deep.equal({ model: encoder, added: false });
  });
});
