/**
 * A Translator over one Apertium pair: each line of the text becomes one null-flush chunk of
 * a long-lived pipeline; line and paragraph breaks are kept around the chunks.
 */
import { InferenceFailedError } from '../../errors.js';
import type { TranslateOptions, Translator } from '../types.js';
import { deformat, reformat } from './apertium-format.js';
import { type ApertiumFailure, type ApertiumPipeline, ApertiumPipelineError } from './apertium-pipeline.js';
import { layoutText } from './text-layout.js';

const CLIENT_REASONS: Record<ApertiumFailure, string> = {
  timeout: 'no translation within the time allowed for this text',
  failed: 'the translation processes stopped on this text',
  disposed: 'the model was unloaded',
  invalid: 'the text could not be sent to the translation processes',
};

interface ApertiumTranslatorOptions {
  modelId: string;
  pipeline: ApertiumPipeline;
  source: string;
  target: string;
}

export class ApertiumTranslator implements Translator {
  readonly targetLanguages: readonly string[];
  readonly sourceLanguages: readonly string[];
  readonly #modelId: string;
  readonly #pipeline: ApertiumPipeline;

  constructor(options: ApertiumTranslatorOptions) {
    this.#modelId = options.modelId;
    this.#pipeline = options.pipeline;
    this.targetLanguages = Object.freeze([options.target]);
    this.sourceLanguages = Object.freeze([options.source]);
  }

  async translate(text: string, options: TranslateOptions): Promise<string> {
    const { signal } = options;
    signal?.throwIfAborted();
    const layout = layoutText(text, { sentences: false });
    if (layout.units.length === 0) return text;
    try {
      const answers = await this.#pipeline.translate(layout.units.map(deformat), signal ? { signal } : {});
      return layout.rebuild(answers.map(reformat));
    } catch (error) {
      if (error instanceof ApertiumPipelineError) {
        // The pipeline's message names processes and quotes their stderr: for operators, not clients.
        const failure = new InferenceFailedError(this.#modelId, CLIENT_REASONS[error.failure]);
        failure.cause = error;
        throw failure;
      }
      throw error;
    }
  }

  dispose(): Promise<void> {
    return this.#pipeline.dispose();
  }
}
