/**
 * Sentence embeddings from a feature-extraction model (all-MiniLM-L6-v2 layout): tokenize a
 * padded batch, one forward pass, mean-pool under the attention mask, L2-normalise. Concurrent
 * callers share forward passes through a micro-batcher.
 */
import type { PreTrainedModel, PreTrainedTokenizer, Tensor } from '@huggingface/transformers';
import { MicroBatcher, type MicroBatcherOptions } from './micro-batcher.js';
import { meanPooledRows, runModel } from './model-io.js';

export class SentenceEmbedder {
  readonly #tokenizer: PreTrainedTokenizer;
  readonly #model: PreTrainedModel;
  readonly #batcher: MicroBatcher<string, Float32Array>;
  readonly #maxBatchSize: number;

  constructor(tokenizer: PreTrainedTokenizer, model: PreTrainedModel, batch: MicroBatcherOptions) {
    this.#tokenizer = tokenizer;
    this.#model = model;
    this.#maxBatchSize = batch.maxBatchSize;
    this.#batcher = new MicroBatcher((texts) => this.#forward(texts), batch);
  }

  /** One text, batched with whatever else is waiting. */
  embed(text: string): Promise<Float32Array> {
    return this.#batcher.submit(text);
  }

  /** Many texts (e.g. label prototypes at load), in bounded chunks, bypassing the request queue. */
  async embedAll(texts: readonly string[]): Promise<Float32Array[]> {
    const rows: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.#maxBatchSize) {
      rows.push(...(await this.#forward(texts.slice(start, start + this.#maxBatchSize))));
    }
    return rows;
  }

  async dispose(): Promise<void> {
    await this.#model.dispose();
  }

  async #forward(texts: string[]): Promise<Float32Array[]> {
    const inputs = this.#tokenizer(texts, { padding: true, truncation: true }) as { attention_mask: Tensor };
    const outputs = await runModel(this.#model, inputs);
    const hidden = outputs.last_hidden_state;
    if (!hidden) throw new Error('feature-extraction model has no last_hidden_state output');
    return meanPooledRows(hidden, inputs.attention_mask);
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
