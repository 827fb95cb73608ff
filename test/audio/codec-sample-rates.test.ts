import { expect } from 'chai';
import { OUTPUT_SAMPLE_RATES, outputSampleRate } from '../../src/audio/codec-sample-rates.js';

describe('outputSampleRate', () => {
  it('keeps the voice rate where the format carries it, and the requested rate always', () => {
    expect(outputSampleRate('mp3', 22050)).to.equal(22050);
    expect(outputSampleRate('flac', 22050)).to.equal(22050);
    expect(outputSampleRate('aac', 16000)).to.equal(16000);
    expect(outputSampleRate('opus', 16000)).to.equal(16000);
    expect(outputSampleRate('opus', 22050, 48000)).to.equal(48000);
  });

  it('answers pcm at 24 kHz (OpenAI), and Piper-rate Opus at 24 kHz (Opus has no 22.05 kHz)', () => {
    expect(outputSampleRate('pcm', 22050)).to.equal(24000);
    expect(outputSampleRate('opus', 22050)).to.equal(24000);
    expect(outputSampleRate('mp3', 96000)).to.equal(24000);
  });

  it('lists only rates each encoder takes', () => {
    expect(OUTPUT_SAMPLE_RATES.opus).to.deep.equal([8000, 12000, 16000, 24000, 48000]);
    for (const format of ['mp3', 'wav', 'pcm', 'flac', 'aac'] as const) expect(OUTPUT_SAMPLE_RATES[format]).to.include(22050);
  });
});
