/**
 * Silero VAD v6 on its real weights, when installed (`bash scripts/test-models/silero-vad.sh`,
 * part of `npm run test-models`); skipped otherwise.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { decodeAudio } from '../../../src/audio/decode-audio.js';
import type { ManifestEntry } from '../../../src/inference/manifest.js';
import { Pcm16Buffer } from '../../../src/audio/pcm16-buffer.js';
import { SileroVad, TRANSCRIPTION_STATE_RESETS } from '../../../src/inference/speech-to-text/vad/silero-vad.js';
import { sileroVadEngine } from '../../../src/inference/speech-to-text/vad/silero-vad-engine.js';
import type { VoiceActivityDetector } from '../../../src/inference/types.js';
import { REPO_ROOT, SPEECH_DIR } from '../../audio/audio-test-helpers.js';
import { concatSamples } from '../../../src/audio/concat-samples.js';

const MODELS_DIR = join(REPO_ROOT, 'models');
const MODEL_DIR = join(MODELS_DIR, 'silero-vad-v6');
const ONNX = join(MODEL_DIR, 'silero_vad_v6.onnx');
const JFK = join(SPEECH_DIR, 'en_jfk.wav');
const RATE = 16_000;

/** A seeded generator, so the noise is the same on every run. */
function whiteNoise(seconds: number, amplitude: number, seed = 1): Float32Array {
  const samples = new Float32Array(seconds * RATE);
  let state = seed;
  for (let i = 0; i < samples.length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    samples[i] = amplitude * ((2 * state) / 2 ** 32 - 1);
  }
  return samples;
}

/** The parts one after another. */
function joined(...parts: Float32Array[]): Float32Array {
  return concatSamples(parts);
}

describe('Silero VAD v6 (real weights)', () => {
  let vad: SileroVad;
  let jfk: Float32Array;
  before(async function () {
    if (!existsSync(join(MODEL_DIR, '.installed.json'))) {
      this.skip(); // not installed: run `bash scripts/test-models/silero-vad.sh` to include these tests
    }
    vad = await SileroVad.load(ONNX);
    jfk = (await decodeAudio(readFileSync(JFK), { maxSeconds: 60, sampleRate: RATE })).samples;
  });
  after(() => vad?.dispose());

  it('finds the same regions as faster-whisper 1.2.1 in a real clip, twice, with 5 s of silence between', async () => {
    const audio = joined(jfk, new Float32Array(5 * RATE), jfk);
    // Expected values: faster-whisper's get_speech_timestamps on these same samples.
    expect(await vad.speechChunks(audio)).to.deep.equal([
      { start: 0, end: 174_336 },
      { start: 258_816, end: 432_000 },
    ]);
    expect(await vad.speechChunks(audio, { minSilenceDurationMs: 500, speechPadMs: 100 })).to.deep.equal([
      { start: 3520, end: 37_440 },
      { start: 51_648, end: 71_232 },
      { start: 85_440, end: 123_456 },
      { start: 129_984, end: 169_536 },
      { start: 263_616, end: 292_416 },
      { start: 308_160, end: 327_232 },
      { start: 341_440, end: 379_456 },
      { start: 385_984, end: 432_000 },
    ]);
  });

  it('finds no speech in 60 s of silence or of white noise', async () => {
    expect(await vad.speechChunks(new Float32Array(60 * RATE))).to.deep.equal([]);
    for (const amplitude of [0.01, 0.1, 0.5, 0.9]) {
      expect(await vad.speechChunks(whiteNoise(60, amplitude)), `noise at ±${amplitude}`).to.deep.equal([]);
    }
  });

  it('gives the same probabilities however the audio is split into model calls (the LSTM state is carried)', async () => {
    const audio = joined(new Float32Array(3 * RATE), jfk, new Float32Array(2 * RATE));
    const oneCall = await vad.speechProbs(audio, undefined, 100_000);
    expect(oneCall.length).to.equal(Math.floor(audio.length / 512) + 1);
    for (const framesPerBatch of [1, 7, 128]) {
      const split = await vad.speechProbs(audio, undefined, framesPerBatch);
      const worst = split.reduce((max, prob, i) => Math.max(max, Math.abs(prob - oneCall[i]!)), 0);
      expect(worst, `${framesPerBatch} frames a call`).to.be.below(1e-5);
    }
    const regions = await vad.speechChunks(audio);
    expect(regions[0]!.start).to.be.within(2.5 * RATE, 3 * RATE);
  });

  describe('with the state restarted every 10 s (the transcription filter)', () => {
    it('finds quiet speech (-65 dBFS) that follows half a minute of loud speech, which one continuous pass misses', async () => {
      const quiet = jfk.map((sample) => sample * 0.004);
      const audio = joined(jfk, new Float32Array(1.5 * RATE), jfk, new Float32Array(1.5 * RATE), jfk, new Float32Array(1.5 * RATE), quiet);
      const quietStart = 3 * jfk.length + 3 * 1.5 * RATE;
      const inQuiet = (chunks: { start: number; end: number }[]) =>
        chunks.reduce((sum, chunk) => sum + Math.max(0, chunk.end - Math.max(chunk.start, quietStart)), 0) / quiet.length;
      expect(inQuiet(await vad.speechChunks(audio)), 'continuous').to.be.below(0.2);
      expect(inQuiet(await vad.speechChunks(audio, {}, undefined, TRANSCRIPTION_STATE_RESETS)), 'with resets').to.be.above(0.6);
    });

    it('still finds no speech in 60 s of silence or of white noise up to ±0.5', async () => {
      expect(await vad.speechChunks(new Float32Array(60 * RATE), {}, undefined, TRANSCRIPTION_STATE_RESETS)).to.deep.equal([]);
      for (const amplitude of [0.01, 0.1, 0.3, 0.5]) {
        expect(await vad.speechChunks(whiteNoise(60, amplitude), {}, undefined, TRANSCRIPTION_STATE_RESETS), `noise at ±${amplitude}`).to.deep.equal([]);
      }
    });

    it('reads 16-bit PCM (Pcm16Buffer) as it reads Float32', async () => {
      const audio = joined(new Float32Array(3 * RATE), jfk, new Float32Array(12 * RATE), jfk);
      const pcm = new Pcm16Buffer();
      pcm.append(audio);
      const fromFloat = await vad.speechChunks(audio, {}, undefined, TRANSCRIPTION_STATE_RESETS);
      const from16 = await vad.speechChunks(pcm, {}, undefined, TRANSCRIPTION_STATE_RESETS);
      expect(from16.length).to.equal(fromFloat.length);
      from16.forEach((chunk, i) => {
        expect(Math.abs(chunk.start - fromFloat[i]!.start)).to.be.at.most(2 * 512);
        expect(Math.abs(chunk.end - fromFloat[i]!.end)).to.be.at.most(2 * 512);
      });
    });
  });

  it('runs as the voice-activity-detection model in its own worker, at any sample rate', async () => {
    const entry: ManifestEntry = { id: 'silero-vad-v6', task: 'voice-activity-detection', engine: 'silero-vad', description: '', license: 'MIT' };
    const detector: VoiceActivityDetector = await sileroVadEngine.load(entry, { modelDir: MODEL_DIR, modelsDir: MODELS_DIR });
    try {
      const clip = await decodeAudio(readFileSync(JFK), { maxSeconds: 60, sampleRate: 44_100 });
      const regions = await detector.detectSpeech({ samples: joined(new Float32Array(10 * 44_100), clip.samples), sampleRate: 44_100 });
      expect(regions.length).to.be.greaterThan(0);
      expect(regions[0]!.start).to.be.within(9.5, 10.5);
      expect(regions.at(-1)!.end).to.be.closeTo(10 + clip.samples.length / 44_100, 0.5);
      expect(await detector.detectSpeech({ samples: new Float32Array(30 * 8000), sampleRate: 8000 })).to.deep.equal([]);
    } finally {
      await detector.dispose();
    }
  });
});
