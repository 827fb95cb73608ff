/**
 * Worker thread for audio encoding (LAME in WASM is CPU work; docs/benchmarks.md, "Audio codecs").
 * It holds one stream encoder (MP3, PCM16, Ogg Opus, FLAC or AAC) per open response, keyed by a
 * stream id. The Opus, FLAC and AAC encoders load on their first use.
 */
import { outputSampleRate } from '../../audio/codec-sample-rates.js';
import type { MediaFormat } from '../../audio/encode-media.js';
import { compileMp3Codec, createMp3StreamEncoder } from '../../audio/encode-mp3.js';
import { Pcm16StreamEncoder } from '../../audio/encode-pcm16.js';
import { encodeWav } from '../../audio/encode-wav.js';
import { resample } from '../../audio/resample.js';
import { StreamingResampler } from '../../audio/streaming-resampler.js';
import { serveWorker } from '../worker/serve-worker.js';
import type { WorkerImplementation } from '../worker/worker-api.js';
import { withTransfer } from '../worker/worker-protocol.js';

/** The methods this worker serves; `id` names one open stream. */
export interface EncoderApi {
  /** `outputRate`: the rate the client asked for; absent: outputSampleRate's default for the format. */
  openStream(request: { id: number; format: StreamFormat; sampleRate: number; outputRate?: number }): Promise<void>;
  encode(request: { id: number; samples: Float32Array }): Promise<Uint8Array>;
  finish(request: { id: number }): Promise<Uint8Array>;
  abort(request: { id: number }): Promise<void>;
  wav(audio: { samples: Float32Array; sampleRate: number; outputRate?: number }): Promise<Uint8Array>;
}

/** Formats a response can stream sentence by sentence. */
export type StreamFormat = 'mp3' | 'pcm' | MediaFormat;

interface StreamEncoder {
  encode(samples: Float32Array): Uint8Array | Promise<Uint8Array>;
  finish(): Uint8Array | Promise<Uint8Array>;
  abort?(): Promise<void>;
}

/** `encoder` fed through a streaming resampler from `fromRate` to its own rate. */
function resampledBefore(encoder: StreamEncoder, fromRate: number, toRate: number): StreamEncoder {
  const resampler = new StreamingResampler(fromRate, toRate);
  return {
    encode: (samples) => encoder.encode(resampler.push(samples)),
    abort: () => encoder.abort?.() ?? Promise.resolve(),
    finish: async () => {
      const tail = await encoder.encode(resampler.push(new Float32Array(0), true));
      const last = await encoder.finish();
      const out = new Uint8Array(tail.length + last.length);
      out.set(tail);
      out.set(last, tail.length);
      return out;
    },
  };
}

// No model runs here: the thread need not load onnxruntime (ServeOptions.onnxRuntime).
serveWorker<EncoderApi>(startEncoders, { onnxRuntime: false });

async function startEncoders(): Promise<WorkerImplementation<EncoderApi>> {
  const codec = await compileMp3Codec();
  const streams = new Map<number, StreamEncoder>();
  const stream = (id: number) => {
    const encoder = streams.get(id);
    if (!encoder) throw new Error(`no open audio stream ${id}`);
    return encoder;
  };
  const bytes = (data: Uint8Array) => withTransfer(data, [data.buffer as ArrayBuffer]);
  return {
    openStream: async ({ id, format, sampleRate, outputRate }) => {
      if (format === 'pcm') {
        streams.set(id, new Pcm16StreamEncoder(sampleRate, outputRate));
        return;
      }
      const rate = outputSampleRate(format, sampleRate, outputRate);
      const encoder =
        format === 'mp3'
          ? await createMp3StreamEncoder({ sampleRate: rate, codec })
          : await (await import('../../audio/encode-media.js')).MediaStreamEncoder.open(format, rate);
      streams.set(id, rate === sampleRate ? encoder : resampledBefore(encoder, sampleRate, rate));
    },
    encode: async ({ id, samples }) => bytes(await stream(id).encode(samples)),
    finish: async ({ id }) => {
      try {
        return bytes(await stream(id).finish());
      } finally {
        streams.delete(id);
      }
    },
    abort: async ({ id }) => {
      const encoder = streams.get(id);
      streams.delete(id);
      await encoder?.abort?.();
    },
    wav: ({ samples, sampleRate, outputRate }) =>
      bytes(encodeWav(outputRate === undefined ? { samples, sampleRate } : { samples: resample(samples, sampleRate, outputRate), sampleRate: outputRate })),
  };
}
