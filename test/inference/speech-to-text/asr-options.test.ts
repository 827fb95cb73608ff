import { expect } from 'chai';
import { prepacksWeights } from '../../../src/inference/speech-to-text/asr-options.js';

describe('ASR options: weight pre-packing', () => {
  it('is off for fp32 (one copy of the tied embedding) and on for quantised parts, unless set', () => {
    expect(prepacksWeights({ dtype: 'fp32' })).to.equal(false);
    expect(prepacksWeights({ dtype: 'q8' })).to.equal(true);
    expect(prepacksWeights({ dtype: { encoder_model: 'fp32', decoder_model_merged: 'fp32' } })).to.equal(false);
    expect(prepacksWeights({ dtype: { encoder_model: 'fp32', decoder_model_merged: 'q8' } })).to.equal(true);
    expect(prepacksWeights({ dtype: 'fp32', prepackWeights: true })).to.equal(true);
    expect(prepacksWeights({ dtype: 'q8', prepackWeights: false })).to.equal(false);
  });
});
