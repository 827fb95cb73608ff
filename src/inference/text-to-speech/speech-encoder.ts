/**
 * Main-thread handle on the encoder worker. The worker starts on first use and stops after
 * a quiet period, so an idle server (or a finished script) holds no thread.
 */
import type { PcmAudio } from '../../audio/pcm-audio.js';
import { ModelWorker } from '../worker/model-worker.js';
import { workerModule } from '../worker/worker-api.js';
import type { EncoderApi } from './encoder-worker.js';

const ENCODER_WORKER = workerModule<EncoderApi>(import.meta.url, './encoder-worker');
const DEFAULT_IDLE_MS = 30_000;

export interface Mp3Stream {
  encode(samples: Float32Array): Promise<Uint8Array>;
  finish(): Promise<Uint8Array>;
  /** Drops the stream without output (the response was abandoned). */
  abort(): void;
}

export interface SpeechEncoder {
  openMp3(sampleRate: number): Promise<Mp3Stream>;
  wav(audio: PcmAudio): Promise<Uint8Array>;
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
    async openMp3(sampleRate) {
      const id = nextStreamId++;
      // The stream's encoder lives in the thread: keep that thread until the stream closes.
      const close = worker.hold();
      try {
        await worker.call('openMp3', { id, sampleRate });
      } catch (error) {
        close();
        throw error;
      }
      let open = true;
      return {
        encode: (samples) => worker.call('encodeMp3', { id, samples }),
        async finish() {
          try {
            return await worker.call('finishMp3', { id });
          } finally {
            open = false;
            close();
          }
        },
        abort() {
          if (!open) return;
          open = false;
          worker.call('abortMp3', { id }).catch(() => {});
          close();
        },
      };
    },
    wav: (audio) => worker.call('wav', { samples: audio.samples, sampleRate: audio.sampleRate }),
    dispose: () => worker.dispose(),
  };
}
