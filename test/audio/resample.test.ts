import { expect } from 'chai';
import { downmix } from '../../src/audio/downmix.js';
import { resample } from '../../src/audio/resample.js';
import { dominantFrequency, rms, sine } from './audio-test-helpers.js';

describe('resample', () => {
  it('returns the input unchanged when the rates match', () => {
    const input = sine(440, 16000, 0.1);
    expect(resample(input, 16000, 16000)).to.equal(input);
  });

  for (const fromRate of [44100, 48000, 22050, 8000]) {
    it(`keeps a 440 Hz tone at 440 Hz and its level when going ${fromRate} → 16000 Hz`, () => {
      const output = resample(sine(440, fromRate, 1), fromRate, 16000);
      expect(output.length).to.equal(16000);
      expect(dominantFrequency(output, 16000)).to.be.closeTo(440, 3);
      // Skip the edges, where the kernel runs past the ends of the signal.
      expect(rms(output, 800, 15200)).to.be.closeTo(0.5 / Math.SQRT2, 0.01);
    });
  }

  it('removes content above the new Nyquist frequency instead of aliasing it', () => {
    // 12 kHz cannot exist at 16 kHz; a naive resampler would fold it to 4 kHz.
    const output = resample(sine(12000, 48000, 1), 48000, 16000);
    expect(rms(output, 800, 15200)).to.be.below(0.01);
  });

  it('keeps a constant signal constant (unity DC gain)', () => {
    const output = resample(new Float32Array(4410).fill(0.25), 44100, 16000);
    expect(output[800]).to.be.closeTo(0.25, 1e-4);
  });

  it('rejects non-integer or zero rates', () => {
    expect(() => resample(new Float32Array(4), 0, 16000)).to.throw(RangeError);
    expect(() => resample(new Float32Array(4), 44100.5, 16000)).to.throw(RangeError);
  });
});

describe('downmix', () => {
  it('averages channels sample by sample', () => {
    const mono = downmix([new Float32Array([1, 0.5, -1]), new Float32Array([0, 0.5, -1])]);
    expect([...mono]).to.deep.equal([0.5, 0.5, -1]);
  });

  it('copies a single channel, so decoders may reuse their buffers', () => {
    const channel = new Float32Array([0.1, -0.2]);
    const mono = downmix([channel]);
    expect(mono).to.not.equal(channel);
    expect([...mono]).to.deep.equal([...channel]);
  });

  it('reads only the first `frames` samples of each channel', () => {
    expect([...downmix([new Float32Array([0.5, 0.5, 0.5]), new Float32Array([0.25, 0.25, 0.25])], 2)]).to.deep.equal([0.375, 0.375]);
  });

  it('turns NaN into silence and clamps to [-1, 1], so later sums stay finite', () => {
    const mono = downmix([new Float32Array([NaN, Infinity, -Infinity, 3e38, 0.5])]);
    expect([...mono]).to.deep.equal([0, 1, -1, 1, 0.5]);
  });
});
