import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import { speechChunksFromProbs, VAD_FRAME_SAMPLES, type SpeechChunk, type VadOptions } from '../../../src/inference/speech-to-text/vad/speech-timestamps.js';
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
