/**
 * MP3 encoding with LAME compiled to WebAssembly (wasm-media-encoders): several times faster
 * than the pure-JS lamejs port (@breezystack/lamejs), with byte-identical output
 * (docs/benchmarks.md, "Audio codecs"). Still CPU work: call it from a worker.
 *
 * One encoder serves one whole stream: chunks it returns concatenate into a single valid MP3
 * (no per-chunk headers), so decoders see the right sample rate and duration.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createEncoder } from 'wasm-media-encoders';
import { MP3_SAMPLE_RATES, type Mp3SampleRate } from './mp3-sample-rates.js';
import type { PcmAudio } from './pcm-audio.js';

const BITRATES = [8, 16, 24, 32, 40, 48, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320] as const;
type Mp3Bitrate = (typeof BITRATES)[number];

/** 64 kbit/s mono is transparent enough for speech at 16–24 kHz and small on the wire. */
const DEFAULT_MP3_BITRATE: Mp3Bitrate = 64;

interface Mp3EncoderOptions {
  sampleRate: number;
  bitrateKbps?: Mp3Bitrate;
  /** The compiled LAME module from `compileMp3Codec()`; compiled anew when absent. */
  codec?: WebAssembly.Module;
}

/** Compiles LAME once so a new stream only instantiates it instead of compiling it afresh. */
export async function compileMp3Codec(): Promise<WebAssembly.Module> {
  const path = createRequire(import.meta.url).resolve('wasm-media-encoders/wasm/mp3');
  return WebAssembly.compile(await readFile(path));
}

interface Mp3StreamEncoder {
  readonly sampleRate: number;
  /** Encodes the next samples; may return an empty array while LAME fills a frame. */
  encode(samples: Float32Array): Uint8Array;
  /** Flushes the last frames; the encoder cannot be used afterwards. */
  finish(): Uint8Array;
}

function isMp3SampleRate(rate: number): rate is Mp3SampleRate {
  return (MP3_SAMPLE_RATES as readonly number[]).includes(rate);
}

export async function createMp3StreamEncoder(options: Mp3EncoderOptions): Promise<Mp3StreamEncoder> {
  const { sampleRate, bitrateKbps = DEFAULT_MP3_BITRATE, codec } = options;
  if (!isMp3SampleRate(sampleRate)) {
    throw new RangeError(`MP3 cannot carry ${sampleRate} Hz; use one of ${MP3_SAMPLE_RATES.join(', ')}`);
  }
  if (!(BITRATES as readonly number[]).includes(bitrateKbps)) {
    throw new RangeError(`Unsupported MP3 bitrate ${bitrateKbps} kbit/s`);
  }
  const encoder = await createEncoder('audio/mpeg', codec ?? (await compileMp3Codec()));
  encoder.configure({ channels: 1, sampleRate, bitrate: bitrateKbps, outputSampleRate: sampleRate });
  let finished = false;
  return {
    sampleRate,
    encode(samples) {
      if (finished) throw new Error('MP3 encoder already finished');
      // The encoder returns a view into WASM memory that the next call overwrites: copy it.
      return samples.length === 0 ? new Uint8Array(0) : encoder.encode([samples]).slice();
    },
    finish() {
      if (finished) throw new Error('MP3 encoder already finished');
      finished = true;
      return encoder.finalize().slice();
    },
  };
}

/** Whole-buffer convenience: PcmAudio → one MP3 file. */
export async function encodeMp3(audio: PcmAudio, bitrateKbps?: Mp3Bitrate): Promise<Uint8Array> {
  const encoder = await createMp3StreamEncoder({ sampleRate: audio.sampleRate, bitrateKbps });
  const head = encoder.encode(audio.samples);
  const tail = encoder.finish();
  const out = new Uint8Array(head.length + tail.length);
  out.set(head, 0);
  out.set(tail, head.length);
  return out;
}
