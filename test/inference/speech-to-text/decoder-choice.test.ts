/**
 * What a Whisper decoder graph supports is decided from its structure when the model loads
 * (graph/cross-rows-support.ts, graph/rewritten-decoder.ts), each decision with its reason: the
 * real tiny.en graphs (skipped when not installed: `npm run test-models`) and small graphs built
 * here for the shapes no installed model has.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { crossRowsSupport, decoderFile } from '../../../src/inference/speech-to-text/graph/cross-rows-support.js';
import { groupCrossAttention } from '../../../src/inference/speech-to-text/graph/grouped-cross-attention.js';
import { MODEL_GRAPH, newNode, tensorInput } from '../../../src/inference/speech-to-text/graph/onnx-graph-fields.js';
import { RewrittenDecoder } from '../../../src/inference/speech-to-text/graph/rewritten-decoder.js';
import { messageField, writeFields } from '../../../src/inference/speech-to-text/graph/protobuf-fields.js';
import { REPO_ROOT } from '../../audio/audio-test-helpers.js';
import { tinyEnAvailable } from './tiny-en-window-decoder.js';

const TINY_EN = join(REPO_ROOT, 'models', 'whisper-tiny.en');
const FLOAT = 1;

/** A model whose graph has the cross-attention cache input `past_key_values.0.encoder.key` read by `nodes`. */
function graphWith(nodes: ReturnType<typeof newNode>[]): Uint8Array {
  return writeFields([messageField(MODEL_GRAPH, [...nodes, tensorInput('past_key_values.0.encoder.key', FLOAT)])]);
}

describe('decoder choices at load', () => {
  it('a cache read only through Transpose into MatMul broadcasts; a Reshape by rows does not, and the reason names the node', () => {
    const broadcasting = crossRowsSupport(
      graphWith([newNode('Transpose', 'key_t', ['past_key_values.0.encoder.key'], ['k']), newNode('MatMul', 'scores', ['q', 'k'], ['s'])]),
    );
    expect(broadcasting.broadcasts).to.equal(true);
    const reshaping = crossRowsSupport(graphWith([newNode('Reshape', 'layers.0/encoder_attn/Reshape', ['past_key_values.0.encoder.key', 'shape'], ['r'])]));
    expect(reshaping).to.deep.equal({
      broadcasts: false,
      reason: 'Reshape node layers.0/encoder_attn/Reshape reads the cross-attention cache (past_key_values.0.encoder.key) by its rows',
    });
    expect(crossRowsSupport(writeFields([messageField(MODEL_GRAPH, [])])).broadcasts).to.equal(false);
  });

  it('the decoder file follows the dtype as transformers.js names it', () => {
    expect(decoderFile('/m', 'fp32')).to.equal(join('/m', 'onnx', 'decoder_model_merged.onnx'));
    expect(decoderFile('/m', { encoder_model: 'fp32', decoder_model_merged: 'q8' })).to.equal(join('/m', 'onnx', 'decoder_model_merged_quantized.onnx'));
    expect(decoderFile('/m', 'auto' as never)).to.equal(undefined);
  });

  describe('whisper-tiny.en', () => {
    before(function () {
      if (!tinyEnAvailable()) this.skip(); // run `npm run test-models` to include it
    });

    it('its fp32 and q8 decoders broadcast the cross-attention rows, before and after the grouping rewrite', () => {
      for (const file of [decoderFile(TINY_EN, 'fp32')!, decoderFile(TINY_EN, 'q8')!]) {
        const graph = readFileSync(file);
        expect(crossRowsSupport(graph).broadcasts, file).to.equal(true);
        expect(crossRowsSupport(groupCrossAttention(graph).model).broadcasts, file).to.equal(true);
      }
    });

    it('every dtype gets the rewritten decoder, pre-packed as the model is or when small, each choice with its reason', async () => {
      expect(RewrittenDecoder.prepacks(TINY_EN, 'fp32', false)).to.deep.include({ prepack: true });
      expect(RewrittenDecoder.prepacks(TINY_EN, 'q8', true)).to.deep.equal({ prepack: true, reason: "the model's sessions pre-pack their weights" });
      expect(RewrittenDecoder.prepacks(join(REPO_ROOT, 'no-such-model'), 'fp32', false).reason).to.equal(
        'no decoder file where transformers.js keeps dtype "fp32"',
      );
      expect(RewrittenDecoder.of(join(REPO_ROOT, 'no-such-model'), 'fp32', {})).to.equal(undefined);
      expect(await RewrittenDecoder.of(TINY_EN, 'fp32', {})!.plan()).to.deep.equal({
        groupedLayers: 4,
        stepOutputs: 8,
        logitsFrom: true,
        quantizesPerRun: false,
      });
      // q8: its self-attention steps joined (split, the rounding would reach its quantizers), its logits sliced before their quantizer.
      expect(await RewrittenDecoder.of(TINY_EN, 'q8', {})!.plan()).to.deep.equal({ groupedLayers: 4, stepOutputs: 8, logitsFrom: true, quantizesPerRun: true });
    });
  });
});
