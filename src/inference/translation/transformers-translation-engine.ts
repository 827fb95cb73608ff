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
import { defineEngine, type EngineContext } from '../engine.js';
import type { ManifestEntry } from '../manifest.js';
import type { Translator } from '../types.js';
import { FAMILY_CODES } from './language-codes.js';
import { TranslationEngineOptions, translationOptionsRule } from './transformers-translation-options.js';
import type { TranslationWorkerInit } from './translation-worker.js';
import { WorkerTranslator } from './worker-translator.js';

export const transformersTranslationEngine = defineEngine({
  tasks: ['translation'],
  options: TranslationEngineOptions,
  rule: translationOptionsRule,

  async load(entry: ManifestEntry, context: EngineContext, options: TranslationEngineOptions): Promise<Translator> {
    const init: TranslationWorkerInit = {
      modelsDir: context.modelsDir,
      // Absolute: transformers.js would resolve a relative path against its own model root.
      modelDir: resolve(context.modelDir),
      modelId: entry.id,
      options,
    };
    return WorkerTranslator.start(init);
  },

  describe(_entry, options) {
    if (options.family === 'marian') return { source_languages: [options.source], target_languages: [options.target] };
    const codes = Object.keys(FAMILY_CODES[options.family]);
    return { source_languages: codes, target_languages: codes };
  },
});
