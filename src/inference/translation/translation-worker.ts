/**
 * Worker thread that owns one transformers.js translation pipeline: sentence splitting,
 * tokenisation, the ONNX encoder/decoder loop and detokenisation all run here, so the HTTP
 * event loop stays free. The translator inside queues calls (one generation at a time) and
 * drops those whose caller cancelled them.
 */
import { configureRuntime } from '../runtime.js';
import type { TranslateOptions } from '../types.js';
import { serveWorker, type CallContext } from '../worker/serve-worker.js';
import { loadTransformersTranslator } from './load-transformers-translator.js';
import type { TranslationEngineOptions } from './transformers-translation-options.js';

export interface TranslationWorkerInit {
  modelsDir: string;
  modelDir: string;
  modelId: string;
  options: TranslationEngineOptions;
}

export interface TranslationWorkerLanguages {
  target: string[];
  source: string[];
}

serveWorker<TranslationWorkerInit>(async (init) => {
  // Each worker has its own copy of the transformers.js module and so its own `env`.
  configureRuntime({ modelsDir: init.modelsDir });
  const translator = await loadTransformersTranslator(init.modelId, init.modelDir, init.options);
  return {
    languages: (): TranslationWorkerLanguages => ({
      target: [...translator.targetLanguages],
      source: [...translator.sourceLanguages],
    }),
    translate: ({ text, options }: { text: string; options: TranslateOptions }, { signal }: CallContext) =>
      translator.translate(text, { ...options, signal }),
  };
});
