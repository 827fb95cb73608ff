/**
 * Whole-buffer resampling, for PCM that is already in memory (the ASR worker's PcmAudio input).
 * Decoders use the StreamingResampler chunk by chunk instead.
 */
import { checkResampleRates } from './resample-kernel.js';
import { StreamingResampler } from './streaming-resampler.js';

/** Input fed per push, so the resampler's working copy stays small next to the output. */
const CHUNK_SAMPLES = 1 << 16;

/**
 * Throws a RangeError unless both rates are integers within MIN_SAMPLE_RATE … MAX_SAMPLE_RATE,
 * which bounds the kernel (≤ 6 500 taps each side) and its table (≤ 4 MB).
 */
export function resample(input: Float32Array, fromRate: number, toRate: number): Float32Array {
  checkResampleRates(fromRate, toRate);
  if (fromRate === toRate) return input;
  const resampler = new StreamingResampler(fromRate, toRate);
  const output = new Float32Array(resampler.outputLength(input.length));
  let written = 0;
  for (let start = 0; start < input.length || start === 0; start += CHUNK_SAMPLES) {
    const end = Math.min(start + CHUNK_SAMPLES, input.length);
    const piece = resampler.push(input.subarray(start, end), end === input.length);
    output.set(piece, written);
    written += piece.length;
  }
  return output;
}
