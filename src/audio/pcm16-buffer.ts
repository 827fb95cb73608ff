/**
 * Long speech audio held once, as 16-bit samples in fixed blocks: 2 bytes a sample (an hour at
 * 16 kHz is 115 MB, against 230 MB as Float32 and twice that while Float32 pieces are joined),
 * never joined into one array, and read back as Float32 a window at a time. 16 bits is the
 * precision openai/whisper and faster-whisper feed Whisper (both decode through FFmpeg to s16).
 */

/** Where the speech-to-text steps read audio from: a Float32Array (no copy) or a Pcm16Buffer. */
export interface PcmReader {
  readonly length: number;
  /** Samples [start, end) as Float32 in [-1, 1]; may share memory with the source (do not write). */
  read(start: number, end: number): Float32Array;
}

/** A Float32Array as a PcmReader (reads are views, not copies). */
export function floatReader(samples: Float32Array): PcmReader {
  return { length: samples.length, read: (start, end) => samples.subarray(start, end) };
}

/** 2^20 samples (65.5 s at 16 kHz, 2 MB): at most one partly filled block is slack. */
const BLOCK_SAMPLES = 1 << 20;
const BLOCK_SHIFT = 20;
const BLOCK_MASK = BLOCK_SAMPLES - 1;

export class Pcm16Buffer implements PcmReader {
  readonly #blocks: Int16Array[] = [];
  #length = 0;

  get length(): number {
    return this.#length;
  }

  /** Bytes allocated for samples (for memory bounds and their tests). */
  get byteLength(): number {
    return this.#blocks.length * BLOCK_SAMPLES * Int16Array.BYTES_PER_ELEMENT;
  }

  /** Appends Float32 samples, clamped to [-1, 1] and rounded to 16 bits (as FFmpeg's s16 conversion). */
  append(samples: Float32Array): void {
    let from = 0;
    while (from < samples.length) {
      const [block, offset] = this.#room();
      const count = Math.min(samples.length - from, BLOCK_SAMPLES - offset);
      for (let i = 0; i < count; i++) {
        const scaled = Math.round(samples[from + i]! * 32768);
        block[offset + i] = scaled > 32767 ? 32767 : Math.max(scaled, -32768);
      }
      from += count;
      this.#length += count;
    }
  }

  read(start: number, end: number): Float32Array {
    const from = Math.max(0, Math.min(start, this.#length));
    const out = new Float32Array(Math.max(0, Math.min(end, this.#length) - from));
    for (let i = 0; i < out.length; ) {
      const position = from + i;
      const block = this.#blocks[position >> BLOCK_SHIFT]!;
      const offset = position & BLOCK_MASK;
      const count = Math.min(out.length - i, BLOCK_SAMPLES - offset);
      for (let k = 0; k < count; k++) out[i + k] = block[offset + k]! / 32768;
      i += count;
    }
    return out;
  }

  /** The last block if it has room, else a new one; and the write offset in it. */
  #room(): [Int16Array, number] {
    const offset = this.#length & BLOCK_MASK;
    if (offset === 0 && this.#length >> BLOCK_SHIFT === this.#blocks.length) this.#blocks.push(new Int16Array(BLOCK_SAMPLES));
    return [this.#blocks[this.#length >> BLOCK_SHIFT]!, offset];
  }
}
