/**
 * Main-thread handle on the encoder worker. The worker starts on first use and stops after
 * a quiet period, so an idle server (or a finished script) holds no thread.
 */
import { PCM16_OUTPUT_RATE } from '../../audio/codec-sample-rates.js';
import { Pcm16StreamEncoder } from '../../audio/encode-pcm16.js';
import type { PcmAudio } from '../../audio/pcm-audio.js';
import { ModelWorker } from '../worker/model-worker.js';
import { workerModule } from '../worker/worker-api.js';
import type { EncoderApi, StreamFormat } from './encoder-worker.js';

const ENCODER_WORKER = workerModule<EncoderApi>(import.meta.url, './encoder-worker');
const DEFAULT_IDLE_MS = 30_000;

/** One response's encoder in the worker: MP3, PCM16 (pcm), Ogg Opus, FLAC or AAC. */
export interface AudioStream {
  encode(samples: Float32Array): Promise<Uint8Array>;
  finish(): Promise<Uint8Array>;
  /** Drops the stream without output (the response was abandoned). */
  abort(): void;
}

export interface SpeechEncoder {
  /** `outputRate`: resample to it first (absent: outputSampleRate's default for the format). */
  openStream(format: StreamFormat, sampleRate: number, outputRate?: number): Promise<AudioStream>;
  wav(audio: PcmAudio, outputRate?: number): Promise<Uint8Array>;
  /**
   * Starts the thread now and keeps it until the returned function is called: a voice holds it
   * while loaded, so no request after an idle spell waits for the thread and LAME to start
   * (over a second on a loaded machine: docs/benchmarks.md, "Text to speech").
   */
  keepWarm(): () => void;
  dispose(): Promise<void>;
}

export function createSpeechEncoder(options: { idleMs?: number } = {}): SpeechEncoder {
  const worker = ModelWorker.create(ENCODER_WORKER, {
    init: undefined,
    modelId: 'tts:encoder',
    name: 'tts:encoder',
    idleStopMs: options.idleMs ?? DEFAULT_IDLE_MS,
  });
  let nextStreamId = 1;

  return {
    async openStream(format, sampleRate, outputRate) {
      if (format === 'pcm' && (outputRate ?? PCM16_OUTPUT_RATE) === sampleRate) return inlinePcm16(sampleRate);
      const id = nextStreamId++;
      // The stream's encoder lives in the thread: keep that thread until the stream closes.
      const close = worker.hold();
      try {
        await worker.call('openStream', { id, format, sampleRate, ...(outputRate === undefined ? {} : { outputRate }) });
      } catch (error) {
        close();
        throw error;
      }
      let open = true;
      return {
        encode: (samples) => worker.call('encode', { id, samples }),
        async finish() {
          try {
            return await worker.call('finish', { id });
          } finally {
            open = false;
            close();
          }
        },
        abort() {
          if (!open) return;
          open = false;
          worker.call('abort', { id }).catch(() => {});
          close();
        },
      };
    },
    keepWarm() {
      const release = worker.hold();
      // Any call starts the thread; aborting a stream that does not exist does nothing.
      worker.call('abort', { id: 0 }).catch(() => {});
      return release;
    },
    wav: (audio, outputRate) =>
      worker.call('wav', { samples: audio.samples, sampleRate: audio.sampleRate, ...(outputRate === undefined ? {} : { outputRate }) }),
    dispose: () => worker.dispose(),
  };
}

/**
 * 16-bit PCM at the voice's own rate (a streamed WAV's body), written on the calling thread: no
 * resampling, only a clamp and a store per sample (well under a millisecond per second of audio),
 * cheaper than the hop to the encoder worker and back that would otherwise sit in front of the
 * first byte (docs/benchmarks.md, "Text to speech").
 */
function inlinePcm16(sampleRate: number): AudioStream {
  const encoder = new Pcm16StreamEncoder(sampleRate, sampleRate);
  return {
    encode: async (samples) => encoder.encode(samples),
    finish: async () => encoder.finish(),
    abort() {},
  };
}
