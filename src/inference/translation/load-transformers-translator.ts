/**
 * Builds a TransformersTranslator from a model folder in the transformers.js layout. Runs inside
 * the translation worker (translation-worker.ts); also usable directly (tests).
 */
import { pipeline } from '@huggingface/transformers';
import { FAMILY_CODES } from './language-codes.js';
import type { TranslationEngineOptions } from './transformers-translation-options.js';
import { TransformersTranslator, type TranslationPipelineLike } from './transformers-translator.js';

export async function loadTransformersTranslator(modelId: string, modelDir: string, options: TranslationEngineOptions): Promise<TransformersTranslator> {
  const loaded = (await pipeline('translation', modelDir, {
    dtype: options.dtype,
    device: 'cpu',
    ...(options.threads ? { session_options: { intraOpNumThreads: options.threads, interOpNumThreads: 1 } } : {}),
  })) as unknown as TranslationPipelineLike & { tokenizer: { language_codes?: string[] } };
  const common = { modelId, pipeline: loaded, batchSize: options.batchSize, maxUnitChars: options.maxUnitChars };
  if (options.family === 'marian') {
    const target = options.target as string;
    return new TransformersTranslator({ ...common, targetCodes: { [target]: target }, fixedSource: options.source as string });
  }
  // Offer only the codes this tokenizer really has (a fine-tuned model may drop languages).
  const known = new Set(loaded.tokenizer.language_codes ?? []);
  const codes = Object.fromEntries(Object.entries(FAMILY_CODES[options.family]).filter(([, code]) => known.has(code)));
  if (Object.keys(codes).length === 0) {
    await loaded.dispose();
    throw new Error(`${modelId}: the tokenizer has none of the ${options.family} language codes`);
  }
  return new TransformersTranslator({ ...common, targetCodes: codes, sourceCodes: codes });
}
