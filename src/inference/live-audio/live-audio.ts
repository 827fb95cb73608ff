/**
 * The main-thread face of the live-audio worker: opens LiveAudioStreams for realtime sessions.
 * One worker serves every session (a push costs a small fraction of the audio's duration; see
 * docs/benchmarks.md, "Speech to text"); calls of one
 * stream are answered in order because the worker handles messages in order.
 */
import type { LiveAudioOptions, LiveAudioStream } from '../types.js';
import { ModelWorker } from '../worker/model-worker.js';
import { workerModule } from '../worker/worker-api.js';
import type { LiveAudioApi, LiveAudioWorkerInit } from './live-audio-protocol.js';

const LIVE_AUDIO_WORKER = workerModule<LiveAudioApi, LiveAudioWorkerInit>(import.meta.url, './live-audio-worker');
/** No session for this long: the thread (and its VAD session) is stopped until the next one. */
const IDLE_STOP_MS = 60_000;

export class LiveAudio {
  readonly #init: LiveAudioWorkerInit;
  #worker: Promise<ModelWorker<LiveAudioApi>> | undefined;
  #nextStreamId = 1;

  constructor(init: LiveAudioWorkerInit) {
    this.#init = init;
  }

  get canDetectSpeech(): boolean {
    return this.#init.vadModelPath !== undefined;
  }

  async open(options: LiveAudioOptions): Promise<LiveAudioStream> {
    const worker = await this.#start();
    const streamId = this.#nextStreamId++;
    const detectSpeech = options.detectSpeech && this.#init.vadModelPath !== undefined;
    return {
      push: (audio) => worker.call('push', { streamId, inputSampleRate: options.inputSampleRate, encoding: options.encoding, detectSpeech, audio }),
      close: () => worker.call('close', { streamId }),
    };
  }

  async dispose(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    await (await worker?.catch(() => undefined))?.dispose();
  }

  #start(): Promise<ModelWorker<LiveAudioApi>> {
    if (!this.#worker) {
      this.#worker = ModelWorker.start(LIVE_AUDIO_WORKER, { init: this.#init, modelId: 'live-audio', name: 'live-audio', idleStopMs: IDLE_STOP_MS });
      // A thread that failed to start is tried again by the next session.
      this.#worker.catch(() => (this.#worker = undefined));
    }
    return this.#worker;
  }
}
