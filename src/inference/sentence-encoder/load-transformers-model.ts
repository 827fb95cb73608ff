/**
 * Where an encoder model's files are (a local folder in the transformers.js layout:
 * config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx[_data]) and how to start the
 * worker threads that load and serve them (batch-model-worker.ts). Nothing here imports
 * transformers.js: only the workers do.
 */
import { resolve } from 'node:path';
import { hasInstallMarker, type EngineContext } from '../engine.js';
import type { ManifestEntry } from '../manifest.js';
import { BatchModel } from './batch-model.js';
import { workerLayout, type EncoderOptions } from './encoder-options.js';

export type ModelHead = 'sequence-classification' | 'feature-extraction';

/**
 * The folder holding the weights: the model's own folder, or `<MODELS_DIR>/<options.baseModel>`
 * when several ids share one installed base model (minilm-sentiment and minilm-topics share MiniLM).
 * Always absolute: transformers.js would resolve a relative "models/x" against its own env path.
 */
export function weightsDir(options: EncoderOptions, context: EngineContext): string {
  return options.baseModel === undefined ? resolve(context.modelDir) : resolve(context.modelsDir, options.baseModel);
}

/** Installed when the weights folder (own or shared base) carries the install marker. */
export function weightsInstalled(_entry: ManifestEntry, context: EngineContext, options: EncoderOptions): Promise<boolean> {
  return hasInstallMarker(weightsDir(options, context));
}

/** Starts the workers that serve this manifest entry's model. */
export function startBatchModel(modelId: string, options: EncoderOptions, context: EngineContext, head: ModelHead): Promise<BatchModel> {
  const { workers, threads, soloThreads } = workerLayout(options);
  const init = {
    modelsDir: resolve(context.modelsDir),
    dir: weightsDir(options, context),
    head,
    dtype: options.dtype,
    ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
    threads,
    maxBatchSize: options.maxBatchSize,
    pooling: options.pooling,
    memoryArena: options.memoryArena,
  };
  return BatchModel.start(init, modelId, { workers, soloThreads });
}
