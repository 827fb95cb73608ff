/**
 * Worker thread that owns one transformers.js translation pipeline: sentence splitting,
 * tokenisation, the ONNX encoder/decoder loop and detokenisation all run here, so the HTTP
 * event loop stays free. Calls run one at a time on the worker's queue (generation is
 * CPU-bound, so running two at once only doubles memory); one cancelled while it waits never runs.
 */
import { configureRuntime } from '../runtime.js';
import type { TranslateOptions } from '../types.js';
import { serveWorker } from '../worker/serve-worker.js';
import type { CallContext } from '../worker/worker-api.js';
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

/** The methods this worker serves. The signal of TranslateOptions travels as the call's own. */
export interface TranslationApi {
  languages(): Promise<TranslationWorkerLanguages>;
  translate(request: { text: string; options: Omit<TranslateOptions, 'signal'> }, context: CallContext): Promise<string>;
}

serveWorker<TranslationApi, TranslationWorkerInit>(async (init) => {
  // Each worker has its own copy of the transformers.js module and so its own `env`.
  configureRuntime({ modelsDir: init.modelsDir });
  const translator = await loadTransformersTranslator(init.modelId, init.modelDir, init.options);
  return {
    languages: () => ({
      target: [...translator.targetLanguages],
      source: [...translator.sourceLanguages],
    }),
    // A long text is one job, each batch of its sentences one step: other keys' requests go between.
    translate: ({ text, options }, { signal, serial, step }) => serial(() => translator.translate(text, { ...options, signal, step })),
    dispose: () => translator.dispose(),
  };
});
