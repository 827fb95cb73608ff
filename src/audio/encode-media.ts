/**
 * Encoders for the speech formats beyond MP3/WAV/PCM: Ogg Opus, FLAC and AAC (ADTS, as OpenAI's
 * `aac` answers). Mediabunny does the muxing. Opus and AAC are append-only, so every byte can
 * leave as soon as it exists. FLAC is written whole at the end: its header (STREAMINFO) comes
 * first and carries the sample count, which a streamed FLAC must leave at 0 ("unknown"), and
 * players and tools (soundfile, speaches' tests) then read the duration as 0; the codecs are WASM builds: libopus (opusscript, opus-encoder.ts),
 * libFLAC (@mediabunny/flac-encoder) and FFmpeg's AAC encoder (@mediabunny/aac-encoder; the
 * latter two run in a worker thread of their own, started per stream).
 */
import { registerAacEncoder } from '@mediabunny/aac-encoder';
import { registerFlacEncoder } from '@mediabunny/flac-encoder';
import {
  AdtsOutputFormat,
  AppendOnlyStreamTarget,
  AudioSample,
  BufferTarget,
  AudioSampleSource,
  FlacOutputFormat,
  OggOutputFormat,
  Output,
  registerEncoder,
  type OutputFormat,
} from 'mediabunny';
import { OUTPUT_SAMPLE_RATES } from './codec-sample-rates.js';
import { DEFAULT_OPUS_BITRATE, OpusScriptEncoder } from './opus-encoder.js';

export type MediaFormat = 'opus' | 'flac' | 'aac';

/** 64 kbit/s AAC-LC mono: clean speech at any of the rates above. */
const AAC_BITRATE = 64_000;

/**
 * How far the encoder may trail the input before encode() returns: one FLAC block (4096
 * samples) or AAC's frame plus its look-ahead, with room to spare. Mediabunny queues up to 4
 * samples for an encoder that works in another thread, so without this wait a short answer's
 * audio would only leave at the end; with it, each sentence's bytes leave with the sentence.
 */
const ENCODER_LAG_SAMPLES = 4608;
/** A stuck encoder must not hold the answer: past this, encode() returns what there is. */
const CATCH_UP_LIMIT_MS = 5_000;

let registered = false;
function registerEncoders(): void {
  if (registered) return;
  registerAacEncoder();
  registerFlacEncoder();
  registerEncoder(OpusScriptEncoder);
  registered = true;
}

function outputFormat(format: MediaFormat): OutputFormat {
  if (format === 'flac') return new FlacOutputFormat();
  if (format === 'aac') return new AdtsOutputFormat();
  // Short pages, so a streamed answer does not wait for a 255-packet page (5 s of audio).
  return new OggOutputFormat({ maximumPageDuration: 0.2 });
}

/** One response's encoder: mono Float32 in at `sampleRate`, encoded bytes out as they are produced. */
export class MediaStreamEncoder {
  readonly #output: Output;
  readonly #source: AudioSampleSource;
  readonly #sampleRate: number;
  readonly #format: MediaFormat;
  #pending: Uint8Array[] = [];
  /** FLAC's whole-file target (see the top of this file); undefined for the streamed formats. */
  readonly #wholeFile: BufferTarget | undefined;
  #frames = 0;
  /** Seconds of input the encoder has turned into packets. */
  #encodedUntil = 0;
  #packetArrived: (() => void) | undefined;

  private constructor(format: MediaFormat, sampleRate: number) {
    this.#sampleRate = sampleRate;
    this.#format = format;
    this.#wholeFile = format === 'flac' ? new BufferTarget() : undefined;
    this.#output = new Output({
      format: outputFormat(format),
      target: this.#wholeFile ?? new AppendOnlyStreamTarget(new WritableStream<Uint8Array>({ write: (chunk) => void this.#pending.push(chunk.slice()) })),
    });
    this.#source = new AudioSampleSource({
      codec: format,
      bitrate: format === 'aac' ? AAC_BITRATE : DEFAULT_OPUS_BITRATE,
      onEncodedPacket: (packet) => {
        this.#encodedUntil = Math.max(this.#encodedUntil, packet.timestamp + packet.duration);
        this.#packetArrived?.();
      },
    });
    this.#output.addAudioTrack(this.#source);
  }

  /** Throws a RangeError for a rate the format does not take (callers check OUTPUT_SAMPLE_RATES). */
  static async open(format: MediaFormat, sampleRate: number): Promise<MediaStreamEncoder> {
    if (!OUTPUT_SAMPLE_RATES[format].includes(sampleRate)) throw new RangeError(`${format} cannot be encoded at ${sampleRate} Hz`);
    registerEncoders();
    const encoder = new MediaStreamEncoder(format, sampleRate);
    await encoder.#output.start();
    return encoder;
  }

  async encode(samples: Float32Array): Promise<Uint8Array> {
    if (samples.length > 0) {
      // FLAC takes its bit depth from the sample format: 16 bits, like WAV and OpenAI's FLAC, not 24.
      const data = this.#format === 'flac' ? toInt16(samples) : samples;
      const format = this.#format === 'flac' ? 's16' : 'f32';
      const sample = new AudioSample({ data, format, numberOfChannels: 1, sampleRate: this.#sampleRate, timestamp: this.#frames / this.#sampleRate });
      this.#frames += samples.length;
      try {
        await this.#source.add(sample);
      } finally {
        sample.close();
      }
      if (!this.#wholeFile) await this.#caughtUp();
    }
    return this.#take();
  }

  /** Waits until the encoder has all but ENCODER_LAG_SAMPLES of the input, then lets the muxer write. */
  async #caughtUp(): Promise<void> {
    const target = (this.#frames - ENCODER_LAG_SAMPLES) / this.#sampleRate;
    const giveUpAt = performance.now() + CATCH_UP_LIMIT_MS;
    while (this.#encodedUntil < target && performance.now() < giveUpAt) {
      await new Promise<void>((resolve) => {
        this.#packetArrived = resolve;
        setTimeout(resolve, 20);
      });
    }
    this.#packetArrived = undefined;
    await new Promise((resolve) => setImmediate(resolve));
  }

  /** The rest of the stream; nothing at all when no audio was given (no empty file to describe). */
  async finish(): Promise<Uint8Array> {
    if (this.#frames === 0) {
      await this.abort();
      return new Uint8Array(0);
    }
    await this.#output.finalize();
    if (this.#wholeFile?.buffer) return new Uint8Array(this.#wholeFile.buffer);
    return this.#take();
  }

  async abort(): Promise<void> {
    await this.#output.cancel();
    this.#pending = [];
  }

  #take(): Uint8Array {
    const pieces = this.#pending.splice(0);
    return pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
  }
}

function toInt16(samples: Float32Array): Int16Array {
  return Int16Array.from(samples, (x) => Math.round(Math.max(-1, Math.min(1, x)) * 32767));
}
