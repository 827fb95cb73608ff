/**
 * A tokenizer + ONNX model running in its own worker thread, called one batch at a time:
 * `forward(texts)` returns one row per text (logits, or pooled sentence embeddings).
 */
import { WorkerClient, workerModuleUrl } from '../worker/worker-client.js';
import type { BatchModelInit, ForwardRequest, ForwardResult, ModelFacts } from './batch-model-protocol.js';

const WORKER_URL = workerModuleUrl(import.meta.url, './batch-model-worker');

export class BatchModel {
  readonly #worker: WorkerClient;
  readonly facts: ModelFacts;

  private constructor(worker: WorkerClient, facts: ModelFacts) {
    this.#worker = worker;
    this.facts = facts;
  }

  static async start(init: BatchModelInit, name: string): Promise<BatchModel> {
    const worker = await WorkerClient.spawn(WORKER_URL, { init, name: `classification:${name}` });
    try {
      return new BatchModel(worker, await worker.call<ModelFacts>('facts'));
    } catch (error) {
      await worker.dispose();
      throw error;
    }
  }

  async forward(texts: string[], pairs?: string[]): Promise<Float32Array[]> {
    const request: ForwardRequest = pairs ? { texts, pairs } : { texts };
    const { data, width } = await this.#worker.call<ForwardResult>('forward', request);
    return Array.from({ length: texts.length }, (_, row) => data.subarray(row * width, (row + 1) * width));
  }

  async dispose(): Promise<void> {
    await this.#worker.call('dispose').catch(() => undefined);
    await this.#worker.dispose();
  }
}
