/**
 * Long speech audio held once, as 16-bit samples in fixed blocks: 2 bytes a sample (an hour at
 * 16 kHz is 115 MB, against 230 MB as Float32 and twice that while Float32 pieces are joined),
 * never joined into one array, and read back as Float32 a window at a time.
 *
 * Every 256 samples (16 ms) share an exponent: their 16 bits count from that stretch's own peak,
 * not from full scale. Plain s16 (what openai/whisper and faster-whisper get from FFmpeg) leaves
 * a speaker 80–90 dB down with 1–2 steps of signal, which the VAD's and Whisper's leveling then
 * only make louder; counted from the local peak they keep 16 bits, as the Float32 they were
 * decoded into had. 16-bit input comes back exactly, and the exponents add 1 byte a 256 samples.
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
/** Samples that share an exponent. */
const GROUP_SHIFT = 8;
const GROUP_SAMPLES = 1 << GROUP_SHIFT;
/** At most 2^15 finer than s16 steps (31 bits below full scale): quieter than that is silence. */
const MAX_EXPONENT = 15;
/** What a stored sample is multiplied by to read it, by exponent. */
const READ_SCALE = Float32Array.from({ length: MAX_EXPONENT + 1 }, (_, exponent) => 1 / (32768 * 2 ** exponent));

export class Pcm16Buffer implements PcmReader {
  readonly #blocks: Int16Array[] = [];
  readonly #exponents: Uint8Array[] = [];
  #length = 0;

  get length(): number {
    return this.#length;
  }

  /** Bytes allocated for samples and their exponents (for memory bounds and their tests). */
  get byteLength(): number {
    return this.#blocks.length * (BLOCK_SAMPLES * Int16Array.BYTES_PER_ELEMENT + (BLOCK_SAMPLES >> GROUP_SHIFT));
  }

  /**
   * Appends Float32 samples, clamped to [-1, 1] and rounded to 16 bits below their group's
   * exponent (at exponent 0, as FFmpeg's s16 conversion). A group filled by more than one append
   * takes the smaller exponent, the samples already in it shifted to match.
   */
  append(samples: Float32Array): void {
    let from = 0;
    while (from < samples.length) {
      const [block, exponents, offset] = this.#room();
      const group = offset >> GROUP_SHIFT;
      const groupStart = group << GROUP_SHIFT;
      const count = Math.min(samples.length - from, groupStart + GROUP_SAMPLES - offset);
      let exponent = exponentFor(peakOf(samples, from, from + count));
      if (offset > groupStart) {
        const held = exponents[group]!;
        if (exponent < held) shiftDown(block, groupStart, offset, held - exponent);
        else exponent = held;
      }
      exponents[group] = exponent;
      const scale = 32768 * 2 ** exponent;
      for (let i = 0; i < count; i++) {
        const scaled = Math.round(samples[from + i]! * scale);
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
      const scale = READ_SCALE[this.#exponents[position >> BLOCK_SHIFT]![offset >> GROUP_SHIFT]!]!;
      const count = Math.min(out.length - i, GROUP_SAMPLES - (offset & (GROUP_SAMPLES - 1)));
      for (let k = 0; k < count; k++) out[i + k] = block[offset + k]! * scale;
      i += count;
    }
    return out;
  }

  /** The last block if it has room, else a new one; its exponents; and the write offset in it. */
  #room(): [Int16Array, Uint8Array, number] {
    const offset = this.#length & BLOCK_MASK;
    if (offset === 0 && this.#length >> BLOCK_SHIFT === this.#blocks.length) {
      this.#blocks.push(new Int16Array(BLOCK_SAMPLES));
      this.#exponents.push(new Uint8Array(BLOCK_SAMPLES >> GROUP_SHIFT));
    }
    const index = this.#length >> BLOCK_SHIFT;
    return [this.#blocks[index]!, this.#exponents[index]!, offset];
  }
}

function peakOf(samples: Float32Array, start: number, end: number): number {
  let peak = 0;
  for (let i = start; i < end; i++) {
    const magnitude = Math.abs(samples[i]!);
    if (magnitude > peak) peak = magnitude;
  }
  return peak;
}

/** The largest exponent at which `peak` still rounds to at most 32767 (0 for full scale and above). */
function exponentFor(peak: number): number {
  let exponent = 0;
  while (exponent < MAX_EXPONENT && Math.round(peak * 32768 * 2 ** (exponent + 1)) <= 32767) exponent++;
  return exponent;
}

/** Samples [start, end) of a block divided by 2^bits, rounded: the same group at a smaller exponent. */
function shiftDown(block: Int16Array, start: number, end: number, bits: number): void {
  const divisor = 2 ** bits;
  for (let i = start; i < end; i++) block[i] = Math.round(block[i]! / divisor);
}
