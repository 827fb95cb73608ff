/**
 * Engine `silero-vad`: Silero VAD v6 in faster-whisper's ONNX graph (silero-vad.ts), for the
 * `voice-activity-detection` task. Its model runs in a worker of its own (vad-worker.ts); the
 * speech-to-text engine loads the same file inside its ASR worker for `vad_filter`
 * (see `vadModelFile`), so transcription does not cross threads twice.
 *
 * ```json
 * "options": { "file": "silero_vad_v6.onnx" }
 * ```
 */
import { join } from 'node:path';
import { Type } from '@sinclair/typebox';
import type { PcmAudio } from '../../../audio/pcm-audio.js';
import { defineEngine, hasInstallMarker } from '../../engine.js';
import type { DetectSpeechOptions, SpeechRegion, VoiceActivityDetector } from '../../types.js';
import { ModelWorker } from '../../worker/model-worker.js';
import { workerModule } from '../../worker/worker-api.js';
import { VAD_FRAME_SAMPLES, VAD_SAMPLE_RATE } from './speech-timestamps.js';
import { DEFAULT_VAD_MODEL } from './vad-request.js';
import type { VadApi, VadWorkerInit } from './vad-worker-protocol.js';

const VAD_WORKER = workerModule<VadApi, VadWorkerInit>(import.meta.url, './vad-worker');

const SileroVadOptions = Type.Object(
  {
    /** The ONNX file inside the model folder. */
    file: Type.String({ minLength: 1, pattern: '^[^/\\\\]+\\.onnx$', default: 'silero_vad_v6.onnx' }),
  },
  { additionalProperties: false },
);

export const sileroVadEngine = defineEngine({
  tasks: ['voice-activity-detection'],
  options: SileroVadOptions,

  async load(entry, context, options): Promise<VoiceActivityDetector> {
    const worker = await ModelWorker.start(VAD_WORKER, {
      init: { onnxFile: join(context.modelDir, options.file) },
      modelId: entry.id,
      name: `vad:${entry.id}`,
    });
    return new WorkerVoiceActivityDetector(worker);
  },

  describe: () => ({ sample_rate: VAD_SAMPLE_RATE, frame_samples: VAD_FRAME_SAMPLES }),
});

/**
 * The VAD file of model `id` under `modelsDir` when it is installed (its marker is there), for
 * engines that run it in their own worker; undefined otherwise.
 */
export async function vadModelFile(modelsDir: string, id = DEFAULT_VAD_MODEL, file = SileroVadOptions.properties.file.default): Promise<string | undefined> {
  const modelDir = join(modelsDir, id);
  return (await hasInstallMarker(modelDir)) ? join(modelDir, file) : undefined;
}

class WorkerVoiceActivityDetector implements VoiceActivityDetector {
  readonly #worker: ModelWorker<VadApi>;

  constructor(worker: ModelWorker<VadApi>) {
    this.#worker = worker;
  }

  detectSpeech(audio: PcmAudio, { signal, ...options }: DetectSpeechOptions = {}): Promise<SpeechRegion[]> {
    return this.#worker.call('detectSpeech', { audio, options }, { signal });
  }

  dispose(): Promise<void> {
    return this.#worker.dispose();
  }
}
