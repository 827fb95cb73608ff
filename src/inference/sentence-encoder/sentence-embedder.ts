/**
 * Sentence embeddings from a feature-extraction model (all-MiniLM-L6-v2 layout), computed in the
 * batch-model worker: mean-pooled under the attention mask and L2-normalised, so cosine
 * similarity is a dot product. Concurrent callers share forward passes through a micro-batcher.
 */
import type { BatchModel } from './batch-model.js';
import { MicroBatcher, type MicroBatcherOptions } from './micro-batcher.js';

export class SentenceEmbedder {
  readonly #model: BatchModel;
  readonly #batcher: MicroBatcher<string, Float32Array>;

  /** Tokens of one text the model reads (longer texts are truncated), when its files say. */
  readonly maxInputTokens: number | undefined;

  constructor(model: BatchModel, batch: MicroBatcherOptions) {
    this.#model = model;
    this.maxInputTokens = model.facts.maxInputTokens;
    this.#batcher = new MicroBatcher((texts) => model.forward(texts), batch);
  }

  /**
   * One text, batched with whatever else is waiting; dropped from its batch if `signal` aborts
   * first. Texts of one `group` (a request's) take turns with other requests' (MicroBatcher).
   */
  embed(text: string, signal?: AbortSignal, group?: object): Promise<Float32Array> {
    return this.#batcher.submit(text, { signal, group });
  }

  /** Many texts at once (label prototypes at load); the worker splits them into bounded batches. */
  embedAll(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.length === 0 ? Promise.resolve([]) : this.#model.forward([...texts]);
  }

  dispose(): Promise<void> {
    return this.#model.dispose();
  }
}

export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

/** Mean of unit vectors, re-normalised: a label's prototype direction. */
export function centroid(vectors: readonly Float32Array[]): Float32Array {
  const size = vectors[0]?.length ?? 0;
  const sum = new Float32Array(size);
  for (const vector of vectors) for (let i = 0; i < size; i++) sum[i]! += vector[i]!;
  const norm = Math.sqrt(dot(sum, sum)) || 1;
  for (let i = 0; i < size; i++) sum[i]! /= norm;
  return sum;
}
