import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import {
  collectChunks,
  speechChunksFromProbs,
  SpeechTimestampsMap,
  VAD_FRAME_SAMPLES,
  type SpeechChunk,
  type VadOptions,
} from '../../../src/inference/speech-to-text/speech-timestamps.js';
import { REPO_ROOT } from '../../audio/audio-test-helpers.js';
import { fuzzRuns } from '../../helpers/fuzz-runs.js';

interface GoldenCase {
  name: string;
  probs: number[];
  length: number;
  options: Record<string, number>;
  expected: SpeechChunk[];
}

/** Made by faster-whisper 1.2.1's own code (scripts/tools/vad_golden.py). */
const GOLDEN = JSON.parse(readFileSync(join(REPO_ROOT, 'test/fixtures/vad/faster-whisper-speech-timestamps.json'), 'utf8')) as { cases: GoldenCase[] };

const OPTION_NAMES: Record<string, keyof VadOptions> = {
  threshold: 'threshold',
  neg_threshold: 'negThreshold',
  min_speech_duration_ms: 'minSpeechDurationMs',
  max_speech_duration_s: 'maxSpeechDurationS',
  min_silence_duration_ms: 'minSilenceDurationMs',
  speech_pad_ms: 'speechPadMs',
};

function toVadOptions(options: Record<string, number>): VadOptions {
  return Object.fromEntries(Object.entries(options).map(([name, value]) => [OPTION_NAMES[name], value]));
}

describe('speechChunksFromProbs', () => {
  for (const golden of GOLDEN.cases) {
    it(`matches faster-whisper's get_speech_timestamps: ${golden.name}`, () => {
      // Float32 like the model's output, so comparisons at the thresholds agree with numpy's.
      const chunks = speechChunksFromProbs(Float32Array.from(golden.probs), golden.length, toVadOptions(golden.options));
      expect(chunks).to.deep.equal(golden.expected);
    });
  }

  const probsAndOptions = fc.record({
    probs: fc.array(fc.float({ min: 0, max: 1, noNaN: true }), { maxLength: 400 }),
    tail: fc.integer({ min: 1, max: VAD_FRAME_SAMPLES }),
    options: fc.record({
      threshold: fc.double({ min: 0.2, max: 0.9, noNaN: true }),
      minSilenceDurationMs: fc.integer({ min: 0, max: 3000 }),
      speechPadMs: fc.integer({ min: 0, max: 600 }),
      minSpeechDurationMs: fc.integer({ min: 0, max: 500 }),
      maxSpeechDurationS: fc.oneof(fc.constant(Number.POSITIVE_INFINITY), fc.double({ min: 0.5, max: 10, noNaN: true })),
    }),
  });

  it('gives ordered, non-overlapping regions inside the audio', () => {
    fc.assert(
      fc.property(probsAndOptions, ({ probs, tail, options }) => {
        // ⌊length / 512⌋ + 1 frames, as the model gives.
        const length = Math.max(0, probs.length - 1) * VAD_FRAME_SAMPLES + tail - 1;
        const chunks = speechChunksFromProbs(Float32Array.from(probs), length, options);
        let previousEnd = 0;
        for (const chunk of chunks) {
          expect(Number.isInteger(chunk.start) && Number.isInteger(chunk.end)).to.equal(true);
          expect(chunk.start).to.be.at.least(previousEnd);
          expect(chunk.end).to.be.above(chunk.start);
          expect(chunk.end).to.be.at.most(length);
          previousEnd = chunk.end;
        }
      }),
      { numRuns: fuzzRuns(200) },
    );
  });

  it('finds nothing when every frame is under the threshold', () => {
    fc.assert(
      fc.property(fc.array(fc.float({ min: 0, max: Math.fround(0.49), noNaN: true }), { maxLength: 2000 }), (probs) => {
        expect(speechChunksFromProbs(Float32Array.from(probs), probs.length * VAD_FRAME_SAMPLES - 1)).to.deep.equal([]);
      }),
      { numRuns: fuzzRuns(100) },
    );
  });
});

describe('collectChunks and SpeechTimestampsMap', () => {
  const chunks: SpeechChunk[] = [
    { start: 16_000, end: 48_000 },
    { start: 80_000, end: 96_000 },
    { start: 160_000, end: 176_000 },
  ];

  it('joins the regions end to end', () => {
    const samples = Float32Array.from({ length: 200_000 }, (_, i) => i);
    const joined = collectChunks(samples, chunks);
    expect(joined.length).to.equal(32_000 + 16_000 + 16_000);
    expect([joined[0], joined[31_999], joined[32_000], joined[48_000], joined.at(-1)]).to.deep.equal([16_000, 47_999, 80_000, 160_000, 175_999]);
  });

  it('maps joined time back to original time (values from faster-whisper 1.2.1)', () => {
    const map = new SpeechTimestampsMap(chunks, 16_000);
    // silence before each region: 1 s, 3 s, 7 s; joined ends at 2 s, 3 s, 4 s
    expect([0, 1.5, 2.0, 2.5, 3.5, 4.0].map((t) => map.originalTime(t))).to.deep.equal([1, 2.5, 5, 5.5, 10.5, 11]);
    expect(map.originalTime(2.0, undefined, true)).to.equal(3);
    expect(map.originalTime(3.0, undefined, true)).to.equal(6);
  });

  it('maps every sample of the joined audio to the same sample of the original', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 1, max: 5_000 })), { minLength: 1, maxLength: 8 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (gapsAndLengths, where) => {
          const regions: SpeechChunk[] = [];
          let at = 0;
          for (const [gap, length] of gapsAndLengths) {
            regions.push({ start: at + gap, end: at + gap + length });
            at += gap + length;
          }
          const total = regions.reduce((sum, region) => sum + region.end - region.start, 0);
          const original = Float32Array.from({ length: at }, (_, i) => i);
          const joined = collectChunks(original, regions);
          const sample = Math.min(total - 1, Math.floor(where * total));
          const map = new SpeechTimestampsMap(regions, 16_000, 6);
          // A sample's own time (not a region end) maps into its region.
          expect(Math.round(map.originalTime(sample / 16_000) * 16_000)).to.equal(joined[sample]);
        },
      ),
      { numRuns: fuzzRuns(200) },
    );
  });
});
