import { expect } from 'chai';
import fc from 'fast-check';
import { downmix } from '../../src/audio/downmix.js';
import { resample } from '../../src/audio/resample.js';
import { StreamingResampler } from '../../src/audio/streaming-resampler.js';
import { dominantFrequency, rms, sine } from './audio-test-helpers.js';
import { IsolatedAudio } from './isolated-audio.js';

const MB = 1024 * 1024;

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

  describe('rates from hostile headers (issue 8)', () => {
    // The kernel radius grows with fromRate / toRate: these built multi-GB phase tables before.
    const isolated = new IsolatedAudio();
    after(() => isolated.close());

    for (const [fromRate, toRate] of [
      [0xffffffff, 16000],
      [0x80000000, 16000],
      [16000, 0xffffffff],
      [384001, 16000],
      [16000, 999],
    ]) {
      it(`refuses ${fromRate} → ${toRate} Hz at once with a RangeError naming the supported range`, async () => {
        const result = await isolated.resample(4, fromRate!, toRate!, 5000);
        expect(result.outcome.ok).to.equal(false);
        const error = (result.outcome as { error: Error }).error;
        expect(error.name, error.message).to.equal('RangeError');
        expect(error.message).to.equal(`sample rates must be integers in 1000–384000 Hz (got ${fromRate} → ${toRate})`);
        expect(result.milliseconds).to.be.below(1000);
      });
    }

    for (const [fromRate, toRate] of [
      [384000, 1000], // the widest kernel: radius 6 468
      [383999, 16000], // 16 000 phases × 810 taps without the table cap (52 MB)
      [384000, 4093], // 4 093 phases × 3 160 taps (52 MB), which was tabulated before
      [1009, 383987], // 383 987 phases
    ]) {
      it(`resamples ${fromRate} → ${toRate} Hz with a bounded table, quickly`, async () => {
        const length = Math.floor(fromRate! / 4);
        const result = await isolated.resample(length, fromRate!, toRate!, 10_000);
        expect(result.outcome.ok, String((result.outcome as { error?: Error }).error)).to.equal(true);
        const { summary } = result.outcome as { summary: { length: number; peak: number } };
        expect(summary.length).to.equal(Math.floor((length * toRate!) / fromRate!));
        expect(summary.peak).to.be.within(0.24, 0.3); // a constant 0.25, plus the ringing of its edges
        expect(result.milliseconds).to.be.below(3000);
        expect(result.peakRssGrowth).to.be.below(16 * MB); // the table is ≤ 4 MB
      });
    }

    it('keeps a tone and its level through a rate pair too awkward for an exact table (383999 → 16000 Hz)', () => {
      const output = resample(sine(440, 383999, 1), 383999, 16000);
      expect(dominantFrequency(output.subarray(800, 15200), 16000)).to.be.closeTo(440, 3);
      expect(rms(output, 800, 15200)).to.be.closeTo(0.5 / Math.SQRT2, 0.01);
    });
  });
});

describe('StreamingResampler', () => {
  const RATE_PAIRS = [
    [44100, 16000],
    [48000, 16000],
    [8000, 16000],
    [16000, 22050],
    [96000, 16000],
    [383999, 16000],
    [16000, 16001],
  ] as const;

  it('returns exactly the whole-buffer result however the input is chunked', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...RATE_PAIRS),
        fc.array(fc.integer({ min: 0, max: 3000 }), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        ([fromRate, toRate], chunkSizes, seed) => {
          const length = chunkSizes.reduce((sum, size) => sum + size, 0);
          let state = seed;
          const input = Float32Array.from({ length }, () => ((state = (state * 16807) % 2147483647) / 2147483647) * 2 - 1);
          const resampler = new StreamingResampler(fromRate, toRate);
          const pieces: number[] = [];
          let start = 0;
          for (const size of chunkSizes) {
            pieces.push(...resampler.push(input.subarray(start, start + size)));
            start += size;
          }
          pieces.push(...resampler.push(new Float32Array(0), true));
          expect(pieces).to.deep.equal([...resample(input, fromRate, toRate)]);
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 40) },
    );
  });

  it('refuses input after its last chunk', () => {
    const resampler = new StreamingResampler(44100, 16000);
    resampler.push(new Float32Array(10), true);
    expect(() => resampler.push(new Float32Array(10))).to.throw(/already been given its last chunk/);
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
