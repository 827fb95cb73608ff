import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AutoProcessor } from '@huggingface/transformers';
import { decodeAudio } from '../../../src/audio/decode-audio.js';
import { configureRuntime } from '../../../src/inference/runtime.js';
import { ComplexFft, RealFft } from '../../../src/inference/speech-to-text/features/fft.js';
import { fastWhisperProcessor } from '../../../src/inference/speech-to-text/features/fast-features.js';
import { WhisperLogMel, type WhisperFeatureConfig } from '../../../src/inference/speech-to-text/features/whisper-log-mel.js';
import { REPO_ROOT, sine, SPEECH_DIR } from '../../audio/audio-test-helpers.js';

/** transformers.js's WhisperFeatureExtractor, through its public call. */
interface Extractor {
  (audio: Float32Array): Promise<{ input_features: { data: Float32Array; dims: number[] } }>;
  config: WhisperFeatureConfig & { n_samples: number; sampling_rate: number };
}

function naiveDft(re: Float64Array, im: Float64Array): [Float64Array, Float64Array] {
  const n = re.length;
  const outRe = new Float64Array(n);
  const outIm = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    for (let t = 0; t < n; t++) {
      const angle = (-2 * Math.PI * k * t) / n;
      outRe[k]! += re[t]! * Math.cos(angle) - im[t]! * Math.sin(angle);
      outIm[k]! += re[t]! * Math.sin(angle) + im[t]! * Math.cos(angle);
    }
  }
  return [outRe, outIm];
}

describe('ComplexFft / RealFft', () => {
  for (const size of [8, 30, 200, 400]) {
    it(`matches a direct DFT for size ${size}`, () => {
      const re = Float64Array.from({ length: size }, (_, i) => Math.sin(i * 1.3) + (i % 3));
      const im = Float64Array.from({ length: size }, (_, i) => Math.cos(i * 0.7));
      const [expectedRe, expectedIm] = naiveDft(re, im);
      const gotRe = re.slice();
      const gotIm = im.slice();
      new ComplexFft(size).transform(gotRe, gotIm);
      for (let k = 0; k < size; k++) {
        expect(gotRe[k]).to.be.closeTo(expectedRe[k]!, 1e-9);
        expect(gotIm[k]).to.be.closeTo(expectedIm[k]!, 1e-9);
      }
      const power = new Float64Array(size / 2 + 1);
      new RealFft(size).powerSpectrum(re, power);
      const [realRe, realIm] = naiveDft(re, new Float64Array(size));
      for (let k = 0; k <= size / 2; k++) expect(power[k]).to.be.closeTo(realRe[k]! ** 2 + realIm[k]! ** 2, 1e-7);
    });
  }

  it('rejects sizes with prime factors above 5', () => {
    expect(() => new ComplexFft(14)).to.throw(RangeError);
  });
});

// whisper-v3-turbo-random has large-v3's 128 mel filters; the others have 80.
for (const [model, melBins] of [
  ['whisper-tiny-random', 80],
  ['whisper-v3-turbo-random', 128],
] as const) {
  describe(`WhisperLogMel (against transformers.js WhisperFeatureExtractor, ${model})`, () => {
    let extractor: Extractor;

    before(async () => {
      configureRuntime({ modelsDir: join(REPO_ROOT, 'test/fixtures/models') });
      const processor = (await AutoProcessor.from_pretrained(model)) as unknown as { feature_extractor: Extractor };
      extractor = processor.feature_extractor;
    });

    const window = (audio: Float32Array) => {
      const padded = new Float32Array(extractor.config.n_samples);
      padded.set(audio.subarray(0, padded.length));
      return padded;
    };

    const cases: [string, () => Promise<Float32Array>][] = [
      [
        '11 s of real speech (jfk) padded to 30 s',
        async () => (await decodeAudio(readFileSync(join(SPEECH_DIR, 'en_jfk.mp3')), { sampleRate: 16000, maxSeconds: 60 })).samples,
      ],
      ['a full 30 s window', async () => sine(440, 16000, 30, 0.3)],
      ['silence', async () => new Float32Array(16000)],
      ['a single click', async () => Float32Array.from({ length: 1000 }, (_, i) => (i === 500 ? 1 : 0))],
    ];
    it(`has ${melBins} mel rows over 3000 frames for a 30-s window`, () => {
      const got = new WhisperLogMel(extractor.config).extract(window(sine(440, 16000, 3, 0.3)));
      expect([got.melBins, got.frames]).to.deep.equal([melBins, 3000]);
      expect(got.data.length).to.equal(melBins * 3000);
    });

    for (const [what, audio] of cases) {
      it(`gives the same features for ${what}`, async () => {
        const waveform = window(await audio());
        const expected = (await extractor(waveform)).input_features;
        const got = new WhisperLogMel(extractor.config).extract(waveform);
        expect([1, got.melBins, got.frames]).to.deep.equal(expected.dims);
        let maxDifference = 0;
        for (let i = 0; i < got.data.length; i++) maxDifference = Math.max(maxDifference, Math.abs(got.data[i]! - expected.data[i]!));
        expect(maxDifference).to.be.below(1e-5);
      });
    }

    it("as a processor, gives the extractor's call exactly: audio cut or padded to the window, [1, mel, frames]", async () => {
      const processor = fastWhisperProcessor(extractor.config)!;
      expect(processor.feature_extractor.config).to.equal(extractor.config);
      for (const audio of [sine(440, 16000, 3, 0.3), sine(440, 16000, 31, 0.3)]) {
        const [got, expected] = [(await processor(audio)).input_features, (await extractor(audio)).input_features];
        expect(got.dims).to.deep.equal(expected.dims);
        let maxDifference = 0;
        for (let i = 0; i < got.data.length; i++) maxDifference = Math.max(maxDifference, Math.abs((got.data as Float32Array)[i]! - expected.data[i]!));
        expect(maxDifference).to.be.below(1e-5);
      }
      expect(fastWhisperProcessor({ ...extractor.config, mel_filters: [[1, 2]] })).to.equal(undefined);
    });
  });
}
