/**
 * The `transformers-translation` engine: transformers.js translation models in the
 * transformers.js layout (config.json, tokenizer.json, onnx/encoder_model.onnx,
 * onnx/decoder_model_merged.onnx). Manifest options:
 * - `{ family: "marian", source: "en", target: "es" }`: one opus-mt model per pair;
 * - `{ family: "nllb" }` or `{ family: "m2m100" }`: one model, many languages, mapped from
 *   short codes by language-codes.ts (only codes the tokenizer really has are offered);
 * - optional `dtype` (which ONNX files: "fp32" → *.onnx, the default; "q8" → *_quantized.onnx),
 *   `batchSize` (sentences per generate call, default 8), `maxUnitChars` (default 400),
 *   `threads` (onnxruntime intra-op threads).
 */
import { resolve } from 'node:path';
import { pipeline } from '@huggingface/transformers';
import type { Engine, EngineContext } from '../engine.js';
import type { ManifestEntry } from '../manifest.js';
import type { Translator } from '../types.js';
import { M2M100_CODES, NLLB_CODES } from './language-codes.js';
import { TransformersTranslator, type TranslationPipelineLike } from './transformers-translator.js';

type Family = 'marian' | 'nllb' | 'm2m100';

/** transformers.js dtypes, each naming one file suffix under onnx/. */
const DTYPES = ['fp32', 'fp16', 'q8', 'int8', 'uint8', 'q4', 'q4f16', 'bnb4'] as const;
type Dtype = (typeof DTYPES)[number];

interface EngineOptions {
  family: Family;
  dtype: Dtype;
  source?: string;
  target?: string;
  batchSize: number;
  maxUnitChars: number;
  threads?: number;
}

export class TranslationOptionError extends Error {
  override name = 'TranslationOptionError';
}

const FAMILY_CODES: Record<Exclude<Family, 'marian'>, Readonly<Record<string, string>>> = {
  nllb: NLLB_CODES,
  m2m100: M2M100_CODES,
};

export function translationOptions(entry: ManifestEntry): EngineOptions {
  const options = entry.options ?? {};
  const where = `models.json "${entry.id}": options`;
  const family = options.family;
  if (family !== 'marian' && family !== 'nllb' && family !== 'm2m100') {
    throw new TranslationOptionError(`${where}.family must be "marian", "nllb" or "m2m100"`);
  }
  const count = (name: string, fallback: number | undefined): number | undefined => {
    const value = options[name] ?? fallback;
    if (value !== undefined && (!Number.isInteger(value) || (value as number) < 1)) {
      throw new TranslationOptionError(`${where}.${name} must be a positive integer`);
    }
    return value as number | undefined;
  };
  const dtype = options.dtype ?? 'fp32';
  if (!(DTYPES as readonly unknown[]).includes(dtype)) {
    throw new TranslationOptionError(`${where}.dtype must be one of ${DTYPES.join(', ')}`);
  }
  const result: EngineOptions = {
    family,
    dtype: dtype as Dtype,
    batchSize: count('batchSize', 8) as number,
    maxUnitChars: count('maxUnitChars', 400) as number,
  };
  const threads = count('threads', undefined);
  if (threads !== undefined) result.threads = threads;
  if (family === 'marian') {
    for (const name of ['source', 'target'] as const) {
      const value = options[name];
      if (typeof value !== 'string' || !/^[a-z]{2,3}(-[a-z0-9]+)*$/.test(value)) {
        throw new TranslationOptionError(`${where}.${name} must be a short language code for a Marian pair`);
      }
      result[name] = value;
    }
  }
  return result;
}

/** The languages a family offers, before loading (for GET /v1/models). */
function staticLanguages(options: EngineOptions): { source: string[]; target: string[] } {
  if (options.family === 'marian') return { source: [options.source as string], target: [options.target as string] };
  const codes = Object.keys(FAMILY_CODES[options.family]);
  return { source: codes, target: codes };
}

export const transformersTranslationEngine: Engine<'translation'> = {
  tasks: ['translation'],

  async load(entry: ManifestEntry, context: EngineContext): Promise<Translator> {
    const options = translationOptions(entry);
    const loaded = (await pipeline('translation', resolve(context.modelDir), {
      dtype: options.dtype,
      ...(options.threads ? { session_options: { intraOpNumThreads: options.threads, interOpNumThreads: 1 } } : {}),
    })) as unknown as TranslationPipelineLike & { tokenizer: { language_codes?: string[] } };
    const common = { modelId: entry.id, pipeline: loaded, batchSize: options.batchSize, maxUnitChars: options.maxUnitChars };
    if (options.family === 'marian') {
      const target = options.target as string;
      return new TransformersTranslator({ ...common, targetCodes: { [target]: target }, fixedSource: options.source as string });
    }
    // Offer only the codes this tokenizer really has (a fine-tuned model may drop languages).
    const known = new Set(loaded.tokenizer.language_codes ?? []);
    const codes = Object.fromEntries(Object.entries(FAMILY_CODES[options.family]).filter(([, code]) => known.has(code)));
    if (Object.keys(codes).length === 0) {
      await loaded.dispose();
      throw new TranslationOptionError(`${entry.id}: the tokenizer has none of the ${options.family} language codes`);
    }
    return new TransformersTranslator({ ...common, targetCodes: codes, sourceCodes: codes });
  },

  describe(entry) {
    try {
      const languages = staticLanguages(translationOptions(entry));
      return { source_languages: languages.source, target_languages: languages.target };
    } catch {
      return {};
    }
  },
};
