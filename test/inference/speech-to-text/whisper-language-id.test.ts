import { expect } from 'chai';
import { Tensor } from '@huggingface/transformers';
import { detectWhisperLanguage, type LanguageIdPipeline } from '../../../src/inference/speech-to-text/whisper-language-id.js';

/** A stand-in pipeline whose one decoder step scores token i with `scores[i]`. */
function stubPipeline(scores: number[], langToId: Record<string, number> | undefined) {
  const seen: { samples?: number; decoderInput?: bigint[] } = {};
  const model = Object.assign(
    async (inputs: { input_features: Tensor; decoder_input_ids: Tensor }) => {
      seen.decoderInput = [...(inputs.decoder_input_ids.data as BigInt64Array)];
      return { logits: new Tensor('float32', Float32Array.from(scores), [1, 1, scores.length]) };
    },
    { generation_config: { decoder_start_token_id: 1, ...(langToId ? { lang_to_id: langToId } : {}) } },
  );
  const pipeline: LanguageIdPipeline = {
    processor: async (audio) => {
      seen.samples = audio.length;
      return { input_features: new Tensor('float32', new Float32Array(1), [1, 1, 1]) };
    },
    model,
  };
  return { pipeline, seen };
}

describe('detectWhisperLanguage', () => {
  it('picks the language token with the highest logit after <|startoftranscript|>, ignoring other tokens', async () => {
    // Token 0 (not a language) scores highest overall; among languages, <|es|> (3) wins.
    const { pipeline, seen } = stubPipeline([9, 0, 0.5, 2, 1], { '<|en|>': 2, '<|es|>': 3, '<|fr|>': 4 });
    expect(await detectWhisperLanguage(pipeline, new Float32Array(16_000 * 45), 16_000)).to.equal('es');
    expect(seen.decoderInput).to.deep.equal([1n]);
    expect(seen.samples, 'only the first 30 s window is encoded').to.equal(16_000 * 30);
  });

  it('returns undefined for a model without language tokens (English-only)', async () => {
    const { pipeline } = stubPipeline([1, 2], undefined);
    expect(await detectWhisperLanguage(pipeline, new Float32Array(100), 16_000)).to.equal(undefined);
  });
});
