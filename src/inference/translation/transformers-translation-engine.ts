/**
 * The `transformers-translation` engine: transformers.js translation models in the
 * transformers.js layout (config.json, tokenizer.json, onnx/encoder_model*.onnx,
 * onnx/decoder_model_merged*.onnx), run in a worker thread. Manifest options:
 * - `{ family: "marian", source: "en", target: "es" }`: one opus-mt model per pair;
 * - `{ family: "nllb" }` or `{ family: "m2m100" }`: one model, many languages, mapped from
 *   short codes by language-codes.ts (only codes the tokenizer really has are offered);
 * - optional `dtype` (which ONNX files: "fp32" → *.onnx, the default; "q8" → *_quantized.onnx),
 *   `batchSize` (sentences per generate call, default 8), `maxUnitChars` (default 400),
 *   `threads` (onnxruntime intra-op threads).
 */
import { resolve } from 'node:path';
import type { Engine, EngineContext } from '../engine.js';
import type { ManifestEntry } from '../manifest.js';
import type { TranslateOptions, Translator } from '../types.js';
import { RespawningWorker } from '../worker/respawning-worker.js';
import { WorkerClient, workerModuleUrl } from '../worker/worker-client.js';
import { FAMILY_CODES } from './language-codes.js';
import { translationOptions } from './transformers-translation-options.js';
import type { TranslationWorkerInit, TranslationWorkerLanguages } from './translation-worker.js';

const TRANSLATION_WORKER = workerModuleUrl(import.meta.url, './translation-worker');

export { translationOptions } from './transformers-translation-options.js';

/** The main-thread face of a translator that lives in a (respawning) worker. */
class WorkerTranslator implements Translator {
  readonly targetLanguages: readonly string[];
  readonly sourceLanguages: readonly string[];
  readonly #worker: RespawningWorker;

  constructor(worker: RespawningWorker, languages: TranslationWorkerLanguages) {
    this.#worker = worker;
    this.targetLanguages = Object.freeze(languages.target);
    this.sourceLanguages = Object.freeze(languages.source);
  }

  translate(text: string, options: TranslateOptions): Promise<string> {
    // The signal cannot cross postMessage; the worker gets its own for this call instead.
    const { signal, ...wireOptions } = options;
    return this.#worker.call<string>('translate', { text, options: wireOptions }, { signal });
  }

  dispose(): Promise<void> {
    return this.#worker.dispose();
  }
}

export const transformersTranslationEngine: Engine<'translation'> = {
  tasks: ['translation'],

  async load(entry: ManifestEntry, context: EngineContext): Promise<Translator> {
    const init: TranslationWorkerInit = {
      modelsDir: context.modelsDir,
      // Absolute: transformers.js would resolve a relative path against its own model root.
      modelDir: resolve(context.modelDir),
      modelId: entry.id,
      options: translationOptions(entry),
    };
    const spawn = () => WorkerClient.spawn(TRANSLATION_WORKER, { init, name: `translation:${entry.id}` });
    const worker = await spawn();
    try {
      return new WorkerTranslator(new RespawningWorker(worker, entry.id, spawn), await worker.call<TranslationWorkerLanguages>('languages'));
    } catch (error) {
      await worker.dispose();
      throw error;
    }
  },

  describe(entry) {
    try {
      const options = translationOptions(entry);
      if (options.family === 'marian') return { source_languages: [options.source], target_languages: [options.target] };
      const codes = Object.keys(FAMILY_CODES[options.family]);
      return { source_languages: codes, target_languages: codes };
    } catch {
      return {};
    }
  },
};
