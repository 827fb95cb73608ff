import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import { decodeAudio } from '../../../src/audio/decode-audio.js';
import { floatReader } from '../../../src/audio/pcm16-buffer.js';
import { SileroVad, TRANSCRIPTION_STATE_RESETS } from '../../../src/inference/speech-to-text/vad/silero-vad.js';
import { frameGain, VAD_FLOOR_PEAK, VAD_MAX_GAIN, vadLeveledReader } from '../../../src/inference/speech-to-text/vad/vad-input-level.js';
import { REPO_ROOT, SPEECH_DIR } from '../../audio/audio-test-helpers.js';
import { fuzzRuns } from '../../helpers/fuzz-runs.js';
import { concatSamples } from '../../../src/audio/concat-samples.js';

const RATE = 16_000;

function sine(seconds: number, amplitude: number): Float32Array {
  return Float32Array.from({ length: seconds * RATE }, (_, i) => amplitude * Math.sin(i / 5));
}

/** The parts one after another. */
function joined(...parts: Float32Array[]): Float32Array {
  return concatSamples(parts);
}

function peak(samples: Float32Array): number {
  return samples.reduce((max, x) => Math.max(max, Math.abs(x)), 0);
}

describe('vadLeveledReader', () => {
  it('leaves audio at or above the floor and digital silence as they are', () => {
    expect(frameGain(VAD_FLOOR_PEAK)).to.equal(1);
    expect(frameGain(0.5)).to.equal(1);
    expect(frameGain(0)).to.equal(1);
    const loud = joined(sine(3, 0.2), new Float32Array(3 * RATE));
    expect(Array.from(vadLeveledReader(floatReader(loud)).read(0, loud.length))).to.deep.equal(Array.from(loud));
  });

  it('raises a quiet stretch to the floor, by at most ×100, and leaves the second of audio next to loud speech alone', () => {
    const quiet = 0.001;
    const audio = joined(sine(4, 0.3), sine(4, quiet), sine(4, quiet / 1000));
    const leveled = vadLeveledReader(floatReader(audio));
    // Within 1 s of the loud part: as it was.
    expect(Array.from(leveled.read(4 * RATE, 4.9 * RATE))).to.deep.equal(Array.from(audio.subarray(4 * RATE, 4.9 * RATE)));
    expect(peak(leveled.read(5.5 * RATE, 6.5 * RATE))).to.be.closeTo(VAD_FLOOR_PEAK, 1e-4);
    expect(peak(leveled.read(10 * RATE, 12 * RATE))).to.be.closeTo((VAD_MAX_GAIN * quiet) / 1000, 1e-7);
  });

  it('gives the same samples however the audio is read', () => {
    const audio = joined(sine(2, 0.3), sine(3, 0.0005), new Float32Array(RATE), sine(2, 0.00002));
    const whole = vadLeveledReader(floatReader(audio)).read(0, audio.length);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: audio.length - 1 }), { maxLength: 6 }), (cuts) => {
        const edges = [0, ...[...new Set(cuts)].sort((a, b) => a - b), audio.length];
        const reader = vadLeveledReader(floatReader(audio));
        const pieces = edges.slice(1).map((end, i) => reader.read(edges[i]!, end));
        expect(Array.from(joined(...pieces))).to.deep.equal(Array.from(whole));
      }),
      { numRuns: fuzzRuns(30) },
    );
  });
});

describe('vadLeveledReader with Silero VAD v6 (real weights)', () => {
  const modelDir = join(REPO_ROOT, 'models', 'silero-vad-v6');
  const clipFile = join(SPEECH_DIR, 'fr_fleurs_000.ogg');
  let vad: SileroVad;
  let clip: Float32Array;
  before(async function () {
    if (!existsSync(join(modelDir, '.installed.json'))) this.skip(); // needs `npm run test-models`
    vad = await SileroVad.load(join(modelDir, 'silero_vad_v6.onnx'));
    clip = (await decodeAudio(readFileSync(clipFile), { maxSeconds: 60, sampleRate: RATE })).samples;
  });
  after(() => vad?.dispose());

  const speechSeconds = (chunks: { start: number; end: number }[]) => chunks.reduce((sum, chunk) => sum + chunk.end - chunk.start, 0) / RATE;

  it('finds a FLEURS clip made 25 dB quieter (peak −73 dBFS), which Silero alone does not hear', async () => {
    const quiet = joined(
      new Float32Array(5 * RATE),
      clip.map((x) => x * 10 ** (-25 / 20)),
      new Float32Array(5 * RATE),
    );
    expect(speechSeconds(await vad.speechChunks(quiet, {}, undefined, TRANSCRIPTION_STATE_RESETS)), 'as it is').to.equal(0);
    const found = await vad.speechChunks(vadLeveledReader(floatReader(quiet)), {}, undefined, TRANSCRIPTION_STATE_RESETS);
    expect(speechSeconds(found), 'leveled').to.be.above(5);
  });

  it('still finds no speech in a minute of quiet white noise, hum or 16-bit dither', async () => {
    const minute = 60 * RATE;
    let state = 7;
    const random = () => {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      return state / 2 ** 32;
    };
    const sounds: Record<string, Float32Array> = {
      'white noise ±0.001': Float32Array.from({ length: minute }, () => 0.001 * (2 * random() - 1)),
      'hum 50 + 150 Hz at 0.001': Float32Array.from(
        { length: minute },
        (_, i) => 0.001 * Math.sin((2 * Math.PI * 50 * i) / RATE) + 0.0005 * Math.sin((2 * Math.PI * 150 * i) / RATE),
      ),
      '16-bit dither': Float32Array.from({ length: minute }, () => Math.round(random() + random() - 1) / 32768),
    };
    for (const [name, sound] of Object.entries(sounds)) {
      expect(await vad.speechChunks(vadLeveledReader(floatReader(sound)), {}, undefined, TRANSCRIPTION_STATE_RESETS), name).to.deep.equal([]);
    }
  });
});
