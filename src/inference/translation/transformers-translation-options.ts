/** Manifest options of the `transformers-translation` engine (TypeBox schema, checked at start-up). */
import { Type, type Static } from '@sinclair/typebox';
import { DTYPES } from '../dtype.js';
import { stringEnum, type OptionsRule } from '../engine-options.js';

const TRANSLATION_FAMILIES = ['marian', 'nllb', 'm2m100'] as const;

const LanguageCode = Type.String({ pattern: '^[a-z]{2,3}(-[a-z0-9]+)*$' });

export const TranslationEngineOptions = Type.Object(
  {
    family: stringEnum(TRANSLATION_FAMILIES),
    /** Which ONNX files: "fp32" → *.onnx, "q8" → *_quantized.onnx. */
    dtype: stringEnum(DTYPES, { default: 'fp32' }),
    /** Marian pairs only: the pair's short language codes. */
    source: Type.Optional(LanguageCode),
    target: Type.Optional(LanguageCode),
    /** Sentences per generate call. */
    batchSize: Type.Integer({ minimum: 1, default: 8 }),
    /** Longer sentences are cut into units of at most this many characters. */
    maxUnitChars: Type.Integer({ minimum: 1, default: 400 }),
    /** onnxruntime intra-op threads. */
    threads: Type.Optional(Type.Integer({ minimum: 1, maximum: 256 })),
  },
  { additionalProperties: false },
);

export type TranslationEngineOptions = Static<typeof TranslationEngineOptions>;

/** A Marian model is one pair, so it must say which; multilingual families take every code. */
export const translationOptionsRule: OptionsRule<TranslationEngineOptions> = (options) => {
  if (options.family !== 'marian') return undefined;
  const missing = (['source', 'target'] as const).find((name) => options[name] === undefined);
  return missing ? `options.${missing} is required for a Marian pair (a short language code such as "en")` : undefined;
};
