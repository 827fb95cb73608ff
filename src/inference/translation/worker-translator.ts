/** The main-thread face of a transformers.js translator that lives in a (respawning) worker. */
import type { TranslateOptions, Translator } from '../types.js';
import { ModelWorker } from '../worker/model-worker.js';
import { workerModule } from '../worker/worker-api.js';
import type { TranslationApi, TranslationWorkerInit } from './translation-worker.js';

const TRANSLATION_WORKER = workerModule<TranslationApi, TranslationWorkerInit>(import.meta.url, './translation-worker', {
  packages: ['@huggingface/transformers'],
});

export class WorkerTranslator implements Translator {
  readonly targetLanguages: readonly string[];
  readonly sourceLanguages: readonly string[];
  readonly #worker: ModelWorker<TranslationApi>;

  private constructor(worker: ModelWorker<TranslationApi>, languages: { target: string[]; source: string[] }) {
    this.#worker = worker;
    this.targetLanguages = Object.freeze(languages.target);
    this.sourceLanguages = Object.freeze(languages.source);
  }

  /** Starts the model's worker and learns its languages (rejects if the model cannot load). */
  static async start(init: TranslationWorkerInit): Promise<WorkerTranslator> {
    const worker = await ModelWorker.start(TRANSLATION_WORKER, { init, modelId: init.modelId, name: `translation:${init.modelId}` });
    try {
      return new WorkerTranslator(worker, await worker.call('languages'));
    } catch (error) {
      await worker.dispose();
      throw error;
    }
  }

  translate(text: string, options: TranslateOptions): Promise<string> {
    // The signal cannot cross postMessage; the worker gets its own for this call instead.
    const { signal, ...wireOptions } = options;
    return this.#worker.call('translate', { text, options: wireOptions }, { signal });
  }

  dispose(): Promise<void> {
    return this.#worker.dispose();
  }
}
