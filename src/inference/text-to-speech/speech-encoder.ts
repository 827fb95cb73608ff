/**
 * Main-thread handle on the encoder worker. The worker starts on first use and stops after
 * a quiet period, so an idle server (or a finished script) holds no thread.
 */
import type { PcmAudio } from '../../audio/pcm-audio.js';
import { WorkerClient, workerModuleUrl } from '../worker/worker-client.js';

const WORKER_URL = workerModuleUrl(import.meta.url, './encoder-worker');
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
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  let worker: Promise<WorkerClient> | undefined;
  let nextStreamId = 1;
  let busy = 0;
  let idleTimer: NodeJS.Timeout | undefined;

  const acquire = async (): Promise<WorkerClient> => {
    busy++;
    clearTimeout(idleTimer);
    if (!worker) {
      worker = WorkerClient.spawn(WORKER_URL, { name: 'tts:encoder' });
      worker.catch(() => (worker = undefined));
    }
    const client = await worker;
    if (!client.alive) {
      worker = undefined;
      return acquire();
    }
    return client;
  };
  const release = () => {
    busy--;
    if (busy > 0) return;
    idleTimer = setTimeout(() => {
      const stopping = worker;
      worker = undefined;
      void stopping?.then((client) => client.dispose(), () => {});
    }, idleMs);
    idleTimer.unref();
  };

  return {
    async openMp3(sampleRate) {
      const client = await acquire();
      const id = nextStreamId++;
      let open = true;
      const close = () => {
        if (open) {
          open = false;
          release();
        }
      };
      try {
        await client.call('openMp3', { id, sampleRate });
      } catch (error) {
        close();
        throw error;
      }
      return {
        encode: (samples) => client.call<Uint8Array>('encodeMp3', { id, samples }),
        async finish() {
          try {
            return await client.call<Uint8Array>('finishMp3', { id });
          } finally {
            close();
          }
        },
        abort() {
          if (!open) return;
          client.call('abortMp3', { id }).catch(() => {});
          close();
        },
      };
    },
    async wav(audio) {
      const client = await acquire();
      try {
        return await client.call<Uint8Array>('wav', { samples: audio.samples, sampleRate: audio.sampleRate });
      } finally {
        release();
      }
    },
    async dispose() {
      clearTimeout(idleTimer);
      const stopping = worker;
      worker = undefined;
      await stopping?.then((client) => client.dispose(), () => {});
    },
  };
}
