/**
 * Band-limited resampling (windowed sinc, polyphase) of a signal that arrives in chunks, so
 * decoders can hand over audio as they decode it and never hold the source rate in full.
 * Fed the same samples in any chunking, it returns exactly what one whole-buffer pass would:
 * output i lies at input position i·down/up, and samples before the start and past the end
 * count as silence.
 */
import { resampleKernel, type ResampleKernel } from './resample-kernel.js';

export class StreamingResampler {
  readonly #kernel: ResampleKernel;
  /** Input samples from absolute index #bufferStart on that outputs still need. */
  #buffer: Float32Array;
  #bufferStart: number;
  /** Input samples pushed so far. */
  #received = 0;
  /** Outputs returned so far, and where the next one lies: input #center plus #phase/up. */
  #produced = 0;
  #center = 0;
  #phase = 0;
  #finished = false;

  /** Throws a RangeError unless both rates are integers within the supported range. */
  constructor(fromRate: number, toRate: number) {
    this.#kernel = resampleKernel(fromRate, toRate);
    // Output 0 reads from index 1 - radius: the silence before the signal starts.
    this.#bufferStart = 1 - this.#kernel.radius;
    this.#buffer = new Float32Array(this.#kernel.radius - 1);
  }

  /** Output samples that `inputLength` input samples make in total. */
  outputLength(inputLength: number): number {
    return Math.floor((inputLength * this.#kernel.up) / this.#kernel.down);
  }

  /**
   * Adds input and returns every output sample that no longer depends on later input; with
   * `last`, treats the input as ended and returns the rest. Reuses no buffer it returns.
   */
  push(chunk: Float32Array, last = false): Float32Array {
    if (this.#finished) throw new Error('the resampler has already been given its last chunk');
    const { radius, up, down } = this.#kernel;
    // Keep only what the next output reaches back to (its center ≤ #received; see #produce).
    const keepFrom = Math.min(this.#center - radius + 1, this.#bufferStart + this.#buffer.length);
    const kept = this.#buffer.subarray(keepFrom - this.#bufferStart);
    const padding = last ? radius : 0;
    const buffer = new Float32Array(kept.length + chunk.length + padding);
    buffer.set(kept);
    buffer.set(chunk, kept.length);
    this.#buffer = buffer;
    this.#bufferStart = keepFrom;
    this.#received += chunk.length;
    this.#finished = last;
    // Output i needs input up to center(i) + radius; center(i) = floor(i·down/up).
    const ready = last ? this.outputLength(this.#received) : Math.ceil(Math.max(0, (this.#received - radius) * up) / down);
    return this.#produce(Math.max(0, Math.min(ready, this.outputLength(this.#received)) - this.#produced));
  }

  #produce(count: number): Float32Array {
    const { up, down, radius, taps, table, phases, exact } = this.#kernel;
    const output = new Float32Array(count);
    const buffer = this.#buffer;
    const centerStep = Math.floor(down / up);
    const phaseStep = down % up;
    let center = this.#center;
    let phase = this.#phase;
    for (let i = 0; i < count; i++) {
      const first = center - radius + 1 - this.#bufferStart;
      let sum = 0;
      if (exact) {
        sum = dot(buffer, first, table, phase * taps, taps);
      } else {
        const position = (phase * phases) / up;
        const low = Math.floor(position);
        const weight = position - low;
        const row = low * taps;
        for (let k = 0; k < taps; k++) {
          const a = table[row + k]!;
          sum += buffer[first + k]! * (a + weight * (table[row + taps + k]! - a));
        }
      }
      output[i] = sum;
      phase += phaseStep;
      center += centerStep;
      if (phase >= up) {
        phase -= up;
        center++;
      }
    }
    this.#center = center;
    this.#phase = phase;
    this.#produced += count;
    return output;
  }
}

/**
 * Σ buffer[first + k] · table[row + k] for k < taps. Four running sums instead of one: the
 * additions no longer wait on each other, which is markedly faster (docs/benchmarks.md, "Audio
 * codecs"); the result then
 * differs from a single running sum only by float rounding.
 */
function dot(buffer: Float32Array, first: number, table: Float32Array, row: number, taps: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let k = 0;
  for (; k + 3 < taps; k += 4) {
    s0 += buffer[first + k]! * table[row + k]!;
    s1 += buffer[first + k + 1]! * table[row + k + 1]!;
    s2 += buffer[first + k + 2]! * table[row + k + 2]!;
    s3 += buffer[first + k + 3]! * table[row + k + 3]!;
  }
  for (; k < taps; k++) s0 += buffer[first + k]! * table[row + k]!;
  return s0 + s1 + (s2 + s3);
}
