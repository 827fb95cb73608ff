/**
 * One SentenceEmbedder (its worker threads, ONNX sessions and micro-batcher) per base model and
 * layout, shared by every embedding-classifier entry that names it: minilm-sentiment and
 * minilm-topics both run on all-MiniLM-L6-v2, and each set of sessions costs hundreds of MB
 * (docs/benchmarks.md, "Memory"). Sharing
 * the micro-batcher too lets requests to both models ride in one forward pass and keeps the
 * workers' in-flight limit true across them.
 */
import type { EngineContext } from '../engine.js';
import { batchOptions, workerLayout, type EncoderOptions } from './encoder-options.js';
import { startBatchModel, weightsDir } from './load-transformers-model.js';
import { SentenceEmbedder } from './sentence-embedder.js';
import { SharedResources, type Lease } from './shared-resources.js';

const embedders = new SharedResources<SentenceEmbedder>((embedder) => embedder.dispose());

/**
 * The embedder for this entry's weights, started on first use. Entries share it when they load the
 * same weights with the same dtype, worker layout and batching; any difference gets its own.
 * Shared workers are named after the base model, not after one of the entries using it.
 */
export function acquireSentenceEmbedder(modelId: string, options: EncoderOptions, context: EngineContext): Promise<Lease<SentenceEmbedder>> {
  const dir = weightsDir(options, context);
  const batch = batchOptions(options);
  const key = JSON.stringify({
    dir,
    dtype: options.dtype,
    pooling: options.pooling,
    maxTokens: options.maxTokens,
    memoryArena: options.memoryArena,
    layout: workerLayout(options),
    batch,
  });
  const name = options.baseModel ?? modelId;
  return embedders.acquire(key, async () => new SentenceEmbedder(await startBatchModel(name, options, context, 'feature-extraction'), batch));
}

/** Embedders currently running (or starting), for tests. */
export function runningSentenceEmbedders(): number {
  return embedders.size;
}
