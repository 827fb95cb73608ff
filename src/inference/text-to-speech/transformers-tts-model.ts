/**
 * transformers.js `text-to-audio` models that produce a waveform directly (VITS, e.g. MMS-TTS),
 * loaded from MODELS_DIR only. Runs inside the synthesis worker.
 *
 * Not supported: speed (VITS bakes `speaking_rate` into the exported graph) and SpeechT5
 * (needs speaker embeddings and a separately downloaded vocoder).
 */
import { pipeline } from '@huggingface/transformers';
import { ValidationError } from '../../errors.js';
import { configureRuntime } from '../runtime.js';
import type { SentenceSynthesizer } from './sentence-synthesizer.js';

interface RawAudioLike {
  audio: Float32Array;
  sampling_rate: number;
}
type TextToAudio = ((text: string) => Promise<RawAudioLike>) & { dispose(): Promise<void> };

export class TransformersTtsModel implements SentenceSynthesizer {
  readonly #pipe: TextToAudio;
  readonly sampleRate: number;
  readonly #modelId: string;

  private constructor(pipe: TextToAudio, sampleRate: number, modelId: string) {
    this.#pipe = pipe;
    this.sampleRate = sampleRate;
    this.#modelId = modelId;
  }

  static async load(options: { modelsDir: string; modelId: string; threads?: number }): Promise<TransformersTtsModel> {
    // This worker has its own copy of transformers.js, so its `env` is set here too.
    configureRuntime({ modelsDir: options.modelsDir });
    const pipe = (await pipeline('text-to-audio', options.modelId, {
      dtype: 'fp32',
      // No arena, as Piper's default (PiperOptions.memoryArena): a run's buffers grow with its audio.
      session_options: { enableCpuMemArena: false, ...(options.threads ? { intraOpNumThreads: options.threads } : {}) },
    })) as unknown as TextToAudio & { model: { config: { sampling_rate?: number } } };
    const sampleRate = pipe.model.config.sampling_rate;
    if (typeof sampleRate !== 'number') {
      await pipe.dispose();
      throw new Error(`${options.modelId} is not a waveform text-to-audio model (no sampling_rate in config.json)`);
    }
    return new TransformersTtsModel(pipe, sampleRate, options.modelId);
  }

  checkOptions(options: { speed?: number; voice?: string }): void {
    if (options.speed !== undefined && options.speed !== 1) {
      throw new ValidationError(`"speed" is not supported by model "${this.#modelId}"; omit it or send 1`, 'speed');
    }
  }

  async synthesize(sentence: string): Promise<Float32Array> {
    const { audio } = await this.#pipe(sentence);
    return Float32Array.from(audio);
  }

  async dispose(): Promise<void> {
    await this.#pipe.dispose();
  }
}
