/**
 * A tokenizer + ONNX model running in its own worker thread, called one batch at a time:
 * `forward(texts)` returns one row per text (logits, or pooled sentence embeddings).
 * If the worker dies (e.g. out of memory), the failed batch rejects and the next call starts a
 * fresh worker, so one crash does not leave the model answering 500 until a restart.
 */
import { WorkerClient, workerModuleUrl } from '../worker/worker-client.js';
import type { BatchModelInit, ForwardRequest, ForwardResult, ModelFacts } from './batch-model-protocol.js';

const WORKER_URL = workerModuleUrl(import.meta.url, './batch-model-worker');

export class BatchModel {
  readonly facts: ModelFacts;
  readonly #spawn: () => Promise<WorkerClient>;
  #worker: Promise<WorkerClient>;
  #disposed = false;

  private constructor(worker: WorkerClient, facts: ModelFacts, spawn: () => Promise<WorkerClient>) {
    this.#worker = Promise.resolve(worker);
    this.facts = facts;
    this.#spawn = spawn;
  }

  static async start(init: BatchModelInit, name: string): Promise<BatchModel> {
    const spawn = () => WorkerClient.spawn(WORKER_URL, { init, name: `classification:${name}` });
    const worker = await spawn();
    try {
      return new BatchModel(worker, await worker.call<ModelFacts>('facts'), spawn);
    } catch (error) {
      await worker.dispose();
      throw error;
    }
  }

  async forward(texts: string[], pairs?: string[]): Promise<Float32Array[]> {
    if (this.#disposed) throw new Error('model was disposed');
    let worker = await this.#worker.catch(() => undefined);
    if (!worker?.alive) {
      this.#worker = this.#spawn();
      worker = await this.#worker;
    }
    const request: ForwardRequest = pairs ? { texts, pairs } : { texts };
    const { data, width } = await worker.call<ForwardResult>('forward', request);
    return Array.from({ length: texts.length }, (_, row) => data.subarray(row * width, (row + 1) * width));
  }

  async dispose(): Promise<void> {
    this.#disposed = true;
    const worker = await this.#worker.catch(() => undefined);
    if (!worker) return;
    await worker.call('dispose').catch(() => undefined);
    await worker.dispose();
  }
}
