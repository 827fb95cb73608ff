/**
 * A Translator over a transformers.js translation pipeline (Marian opus-mt pairs, NLLB-200,
 * M2M100). Long text is split into sentences, translated in batches, and put back with its
 * line and paragraph breaks. A call whose signal aborts stops at its next decoded token. Run it
 * one call at a time (translation-worker.ts does, on its worker's queue).
 */
import { ValidationError } from '../../errors.js';
import { abortStreamer } from '../abort-streamer.js';
import type { TranslateOptions, Translator } from '../types.js';
import { detectLanguage } from './detect-language.js';
import { layoutText } from './text-layout.js';

/** The part of transformers.js's TranslationPipeline we call. */
export interface TranslationPipelineLike {
  (texts: string[], options: Record<string, unknown>): Promise<unknown>;
  tokenizer: { encode(text: string): number[] };
  dispose(): Promise<void>;
}

/** Runs one unit of model work (CallContext.step). */
type Step = <T>(unit: () => Promise<T>) => Promise<T>;

interface TransformersTranslatorOptions {
  modelId: string;
  pipeline: TranslationPipelineLike;
  /** Short code → the model's own code (`es` → `spa_Latn`); for one-pair models, just the target. */
  targetCodes: Readonly<Record<string, string>>;
  /** Short code → model code for sources; absent for one-pair models (the source is fixed). */
  sourceCodes?: Readonly<Record<string, string>>;
  /** One-pair models: the fixed source. */
  fixedSource?: string;
  batchSize: number;
  maxUnitChars: number;
}

export class TransformersTranslator implements Translator {
  readonly targetLanguages: readonly string[];
  readonly sourceLanguages: readonly string[];
  readonly #options: TransformersTranslatorOptions;

  constructor(options: TransformersTranslatorOptions) {
    this.#options = options;
    this.targetLanguages = Object.freeze(Object.keys(options.targetCodes));
    this.sourceLanguages = Object.freeze(options.fixedSource !== undefined ? [options.fixedSource] : Object.keys(options.sourceCodes ?? {}));
  }

  /**
   * `step` (in its worker, CallContext.step) runs each batch of sentences as one unit of model
   * work, so a long text takes the model in turns with other keys' requests.
   */
  async translate(text: string, { targetLanguage, sourceLanguage, signal, step = (unit) => unit() }: TranslateOptions & { step?: Step }): Promise<string> {
    const { pipeline, targetCodes, batchSize, maxUnitChars } = this.#options;
    const targetCode = targetCodes[targetLanguage];
    if (targetCode === undefined) {
      throw new ValidationError(`"target_language" ${targetLanguage} is not supported; supported: ${this.targetLanguages.join(', ')}`);
    }
    const languageOptions = this.#languageOptions(text, targetCode, sourceLanguage);
    const layout = layoutText(text, { sentences: true, maxUnitChars });
    const { units } = layout;
    // Batches of similar length waste less compute on padding; answers go back in text order.
    const order = units.map((_, index) => index).sort((a, b) => (units[a] as string).length - (units[b] as string).length);
    const translations: string[] = new Array<string>(units.length);
    for (let start = 0; start < order.length; start += batchSize) {
      signal?.throwIfAborted();
      const indexes = order.slice(start, start + batchSize);
      const batch = indexes.map((index) => units[index] as string);
      const longest = Math.max(...batch.map((unit) => pipeline.tokenizer.encode(unit).length));
      const output = (await step(() =>
        pipeline(batch, {
          ...languageOptions,
          // transformers.js 4.3 keeps only the best candidate of a beam anyway ("TODO: Support beam
          // search"), so opus-mt's num_beams 4 would just cost a top-k per step: same output greedily.
          num_beams: 1,
          // Room for the target to be longer than the source, bounded so a degenerate model stops.
          max_new_tokens: Math.min(512, Math.ceil(longest * 2) + 16),
          ...(signal ? { streamer: abortStreamer(signal) } : {}),
        }),
      )) as { translation_text: string }[];
      indexes.forEach((index, position) => (translations[index] = output[position]?.translation_text ?? ''));
    }
    return layout.rebuild(translations);
  }

  #languageOptions(text: string, targetCode: string, sourceLanguage: string | undefined): Record<string, string> {
    const { sourceCodes } = this.#options;
    if (sourceCodes === undefined) return {}; // one-pair model: both languages are fixed
    const source = sourceLanguage ?? detectLanguage(text);
    if (source === undefined) {
      throw new ValidationError('Could not detect the language of "text"; send "source_language"');
    }
    const sourceCode = sourceCodes[source];
    if (sourceCode === undefined) {
      const how = sourceLanguage === undefined ? 'detected as' : 'is';
      throw new ValidationError(
        `The source language ${how} ${source}, which ${this.#options.modelId} does not support; supported: ${this.sourceLanguages.join(', ')}`,
      );
    }
    return { src_lang: sourceCode, tgt_lang: targetCode };
  }

  async dispose(): Promise<void> {
    await this.#options.pipeline.dispose();
  }
}
