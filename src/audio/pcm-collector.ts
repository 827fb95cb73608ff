/**
 * Where every decoder puts what it decodes: each chunk is checked, downmixed to mono and
 * resampled to the model's rate as it arrives, so the source rate and channel count never
 * sit in memory beyond one decoder call.
 *
 * Memory bound: what is kept is at most maxSeconds × sampleRate samples: as Float32 pieces
 * (30 minutes at 16 kHz: 1800 × 16000 × 4 B = 115 MB), twice that for the moment `finish`
 * joins them; or, with `keep16`, as 16-bit samples that are never joined (pcm16-buffer.ts:
 * 60 minutes at 16 kHz is 115 MB in all). Plus one decoder call's output (see byte-slices.ts)
 * and the resampler's table (≤ 4 MB). The duration limit and the byte budget are enforced on
 * the source frames before a chunk is kept, and the deadline is checked on every chunk.
 */
import { UndecodableAudioError } from '../errors.js';
import { checkChannelCount, checkSampleRate } from './audio-bounds.js';
import { audioTooDense, audioTooLong, decodeDeadline, maxFramesForBytes, type DecodeDeadline, type DecodeLimits } from './decode-budget.js';
import { downmix } from './downmix.js';
import type { PcmAudio } from './pcm-audio.js';
import { Pcm16Buffer } from './pcm16-buffer.js';
import { checkResampleRates } from './resample-kernel.js';
import { StreamingResampler } from './streaming-resampler.js';

interface PcmCollectorOptions extends DecodeLimits {
  /** Output rate, e.g. 16000 for Whisper. */
  sampleRate: number;
  /** The format's name for messages, e.g. "Ogg Vorbis". */
  format: string;
  /** Keep 16-bit samples (`finish16`) instead of Float32 pieces (`finish`). */
  keep16?: boolean;
}

export class PcmCollector {
  readonly #format: string;
  readonly #targetRate: number;
  readonly #maxSeconds: number;
  readonly #inputBytes: number | undefined;
  /** The byte budget in frames, once the source rate is known. */
  #maxFrames = Infinity;
  readonly #deadline: DecodeDeadline;
  readonly #pieces: Float32Array[] = [];
  readonly #pcm16: Pcm16Buffer | undefined;
  #resampler: StreamingResampler | undefined;
  #sourceRate = 0;
  #frames = 0;
  #length = 0;

  /** Throws a RangeError for an unsupported output rate: that is the caller's bug, not the client's. */
  constructor(options: PcmCollectorOptions) {
    checkResampleRates(options.sampleRate, options.sampleRate);
    this.#format = options.format;
    this.#targetRate = options.sampleRate;
    this.#maxSeconds = options.maxSeconds;
    this.#inputBytes = options.inputBytes;
    this.#deadline = decodeDeadline(options);
    this.#pcm16 = options.keep16 ? new Pcm16Buffer() : undefined;
  }

  get maxSeconds(): number {
    return this.#maxSeconds;
  }

  /** Throws 413 once the decode has run past its deadline; decoders call it between slices. */
  checkDeadline(): void {
    this.#deadline.check(this.#sourceRate === 0 ? 0 : this.#frames / this.#sourceRate);
  }

  /**
   * Adds one decoded chunk: `frames` samples of each channel, which the caller may reuse
   * afterwards. Throws 400 for an unsupported rate or channel count or a rate change, 413 past
   * the duration limit, the byte budget or the deadline.
   */
  add(channelData: readonly Float32Array[], frames: number, sampleRate: number): void {
    this.checkDeadline();
    if (frames === 0) return;
    checkChannelCount(channelData.length, this.#format);
    if (!(Number.isInteger(frames) && frames > 0 && channelData.every((channel) => channel.length >= frames))) {
      throw new UndecodableAudioError(`the ${this.#format} decoder returned inconsistent data`);
    }
    if (this.#sourceRate === 0) {
      checkSampleRate(sampleRate, this.#format);
      this.#sourceRate = sampleRate;
      if (this.#inputBytes !== undefined) this.#maxFrames = maxFramesForBytes(this.#inputBytes, sampleRate);
      this.#resampler = sampleRate === this.#targetRate ? undefined : new StreamingResampler(sampleRate, this.#targetRate);
    } else if (sampleRate !== this.#sourceRate) {
      throw new UndecodableAudioError(`the ${this.#format} sample rate changes inside the stream`);
    }
    this.#frames += frames;
    if (this.#frames / this.#sourceRate > this.#maxSeconds) throw audioTooLong(this.#maxSeconds);
    if (this.#frames > this.#maxFrames) throw audioTooDense(this.#format, this.#inputBytes!, this.#sourceRate);
    const mono = downmix(channelData, frames);
    this.#keep(this.#resampler ? this.#resampler.push(mono) : mono);
  }

  /** The whole decode as mono 16-bit PCM at the output rate (a collector made with `keep16`). */
  finish16(): Pcm16Buffer {
    if (!this.#pcm16) throw new Error('finish16 needs a collector made with keep16');
    this.#end();
    return this.#pcm16;
  }

  /** The whole decode as mono PCM at the output rate. */
  finish(): PcmAudio {
    if (this.#pcm16) throw new Error('a collector made with keep16 finishes with finish16');
    this.#end();
    const pieces = this.#pieces.splice(0);
    if (pieces.length === 1) return { samples: pieces[0]!, sampleRate: this.#targetRate };
    const samples = new Float32Array(this.#length);
    let offset = 0;
    for (const piece of pieces) {
      samples.set(piece, offset);
      offset += piece.length;
    }
    return { samples, sampleRate: this.#targetRate };
  }

  #end(): void {
    if (this.#frames === 0) throw new UndecodableAudioError(`no ${this.#format} audio found in the data`);
    if (this.#resampler) this.#keep(this.#resampler.push(new Float32Array(0), true));
    if (this.#length === 0) {
      throw new UndecodableAudioError(`the ${this.#format} audio is shorter than one sample at ${this.#targetRate} Hz`);
    }
  }

  #keep(piece: Float32Array): void {
    if (piece.length === 0) return;
    if (this.#pcm16) this.#pcm16.append(piece);
    else this.#pieces.push(piece);
    this.#length += piece.length;
  }
}
