/**
 * Where a classification model's files are (a local folder in the transformers.js layout:
 * config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx[_data]) and how to start the
 * worker threads that load and serve them (batch-model-worker.ts). Nothing here imports
 * transformers.js: only the workers do.
 */
import { resolve } from 'node:path';
import { DTYPES, isDtype, type Dtype } from '../dtype.js';
import { hasInstallMarker, type EngineContext } from '../engine.js';
import type { ManifestEntry } from '../manifest.js';
import { BatchModel } from './batch-model.js';
import { ClassifierOptionError, batchOptions, optionalString, workerLayout } from './classifier-options.js';

export type ModelHead = 'sequence-classification' | 'feature-extraction';

/** `options.dtype` picks the weight file, e.g. q8 → onnx/model_quantized.onnx as hub repos ship it. */
export function classifierDtype(entry: ManifestEntry): Dtype {
  const dtype = optionalString(entry, 'dtype') ?? 'fp32';
  if (!isDtype(dtype)) {
    throw new ClassifierOptionError(`models.json "${entry.id}": options.dtype must be one of ${DTYPES.join(', ')}`);
  }
  return dtype;
}

/**
 * The folder holding the weights: the model's own folder, or `<MODELS_DIR>/<options.baseModel>`
 * when several ids share one installed base model (minilm-sentiment and minilm-topics share MiniLM).
 * Always absolute: transformers.js would resolve a relative "models/x" against its own env path.
 */
export function weightsDir(entry: ManifestEntry, context: EngineContext): string {
  const base = optionalString(entry, 'baseModel');
  if (base === undefined) return resolve(context.modelDir);
  if (!/^[A-Za-z0-9._-]+$/.test(base) || base.startsWith('.')) {
    throw new ClassifierOptionError(`models.json "${entry.id}": options.baseModel must be a folder name`);
  }
  return resolve(context.modelsDir, base);
}

/** Installed when the weights folder (own or shared base) carries the install marker. */
export async function weightsInstalled(entry: ManifestEntry, context: EngineContext): Promise<boolean> {
  try {
    return await hasInstallMarker(weightsDir(entry, context));
  } catch {
    return false;
  }
}

/** Starts the workers that serve this manifest entry's model. */
export function startBatchModel(entry: ManifestEntry, context: EngineContext, head: ModelHead): Promise<BatchModel> {
  const { workers, threads } = workerLayout(entry);
  const init = {
    modelsDir: resolve(context.modelsDir),
    dir: weightsDir(entry, context),
    head,
    dtype: classifierDtype(entry),
    threads,
    maxBatchSize: batchOptions(entry).maxBatchSize,
  };
  return BatchModel.start(init, entry.id, workers);
}
