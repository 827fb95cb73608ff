/**
 * What every decoder returns: one Float32Array per channel at the source rate. Decoders feed
 * chunks through a DecodedAudioCollector, which stops a decode as soon as it passes the
 * duration limit, so a small but very long file (e.g. 8 kbit/s MP3) cannot exhaust memory.
 */
import { PayloadTooLargeError, UndecodableAudioError } from '../errors.js';

export interface DecodedAudio {
  channels: Float32Array[];
  sampleRate: number;
}

export interface DecodeLimits {
  /** Longer audio is rejected with 413 while decoding. */
  maxSeconds: number;
}

/**
 * A plain PayloadTooLargeError (not a subclass) so it keeps its class across the worker
 * boundary, where errors are rebuilt from the classes in src/errors.ts.
 */
export function audioTooLong(maxSeconds: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`audio is longer than the limit of ${maxSeconds} seconds`);
}

export class DecodedAudioCollector {
  readonly #chunks: Float32Array[][] = [];
  readonly #maxSeconds: number;
  #frames = 0;
  #sampleRate = 0;

  constructor(limits: DecodeLimits) {
    this.#maxSeconds = limits.maxSeconds;
  }

  /** Adds one decoded chunk (`frames` samples per channel); throws once past the limit. */
  add(channelData: readonly Float32Array[], frames: number, sampleRate: number): void {
    if (frames === 0) return;
    if (this.#sampleRate !== 0 && sampleRate !== this.#sampleRate) {
      throw new UndecodableAudioError('the sample rate changes inside the stream');
    }
    this.#sampleRate = sampleRate;
    this.#frames += frames;
    if (this.#frames / sampleRate > this.#maxSeconds) throw audioTooLong(this.#maxSeconds);
    // Decoders reuse their output buffers (WASM memory), so keep copies.
    this.#chunks.push(channelData.map((channel) => channel.slice(0, frames)));
  }

  get frames(): number {
    return this.#frames;
  }

  /** The joined audio; "0 samples decoded" means the bytes were not audio we can read. */
  finish(format: string): DecodedAudio {
    if (this.#frames === 0) throw new UndecodableAudioError(`no ${format} audio found in the data`);
    const channelCount = Math.min(...this.#chunks.map((chunk) => chunk.length));
    const channels = Array.from({ length: channelCount }, () => new Float32Array(this.#frames));
    let offset = 0;
    for (const chunk of this.#chunks) {
      for (let c = 0; c < channelCount; c++) channels[c]!.set(chunk[c]!, offset);
      offset += chunk[0]!.length;
    }
    return { channels, sampleRate: this.#sampleRate };
  }
}

/** Splits input so decoders see it in slices and the limit check runs between them. */
export function* slices(bytes: Uint8Array, size = 64 * 1024): Generator<Uint8Array> {
  for (let offset = 0; offset < bytes.length; offset += size) yield bytes.subarray(offset, offset + size);
}
