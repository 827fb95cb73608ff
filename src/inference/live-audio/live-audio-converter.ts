/**
 * One live stream's audio path inside the live-audio worker: PCM16 or G.711 bytes at the
 * client's rate → float samples at 16 kHz (resampled as they arrive) → 512-sample frames for the
 * speech detector, carrying the part of a frame that is not complete yet to the next push.
 */
import { ALAW, decodeG711, MULAW } from '../../audio/g711.js';
import { StreamingResampler } from '../../audio/streaming-resampler.js';
import type { LiveAudioEncoding } from '../types.js';

const LIVE_SAMPLE_RATE = 16_000;
const VAD_FRAME_SAMPLES = 512;

/** Speech probabilities of the next whole 512-sample frames of one stream (stateful, in order). */
export type FrameScorer = (frames: Float32Array) => Promise<Float32Array>;

export class LiveAudioConverter {
  readonly #resampler: StreamingResampler | undefined;
  readonly #score: FrameScorer | undefined;
  readonly #decode: (bytes: Uint8Array) => Float32Array;
  #partialFrame = new Float32Array(VAD_FRAME_SAMPLES);
  #partialLength = 0;

  constructor(inputSampleRate: number, score?: FrameScorer, encoding: LiveAudioEncoding = 'pcm16') {
    this.#resampler = inputSampleRate === LIVE_SAMPLE_RATE ? undefined : new StreamingResampler(inputSampleRate, LIVE_SAMPLE_RATE);
    this.#score = score;
    this.#decode = DECODERS[encoding];
  }

  /** Calls of one stream must not overlap: frames are scored in order, on one state. */
  async push(audio: Uint8Array): Promise<{ samples: Float32Array; speechProbabilities: Float32Array }> {
    const input = this.#decode(audio);
    const samples = this.#resampler ? this.#resampler.push(input) : input;
    return { samples, speechProbabilities: this.#score ? await this.#scoreFrames(samples, this.#score) : new Float32Array(0) };
  }

  async #scoreFrames(samples: Float32Array, score: FrameScorer): Promise<Float32Array> {
    const available = this.#partialLength + samples.length;
    const whole = available - (available % VAD_FRAME_SAMPLES);
    if (whole === 0) {
      this.#partialFrame.set(samples, this.#partialLength);
      this.#partialLength = available;
      return new Float32Array(0);
    }
    const frames = new Float32Array(whole);
    frames.set(this.#partialFrame.subarray(0, this.#partialLength));
    const used = whole - this.#partialLength;
    frames.set(samples.subarray(0, used), this.#partialLength);
    this.#partialFrame.set(samples.subarray(used));
    this.#partialLength = samples.length - used;
    return score(frames);
  }
}

const DECODERS: Record<LiveAudioEncoding, (bytes: Uint8Array) => Float32Array> = {
  pcm16: pcm16ToFloat,
  'g711-ulaw': (bytes) => decodeG711(bytes, MULAW),
  'g711-alaw': (bytes) => decodeG711(bytes, ALAW),
};

/** Little-endian signed 16-bit samples as floats in [-1, 1); the bytes need not be aligned. */
export function pcm16ToFloat(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const samples = new Float32Array(bytes.byteLength >> 1);
  for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(i * 2, true) / 32_768;
  return samples;
}
