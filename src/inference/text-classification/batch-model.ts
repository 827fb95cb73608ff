/**
 * A tokenizer + ONNX model served by one or more worker threads (each its own ONNX session),
 * called one batch at a time per worker: `forward(texts)` returns one row per text (logits, or
 * pooled sentence embeddings) from the least busy worker. If a worker dies (e.g. out of memory),
 * its batch rejects with 503 inference_failed and the next call on that slot starts a fresh one,
 * so one crash does not leave the model failing until a restart.
 */
import { ModelWorker } from '../worker/model-worker.js';
import type { WorkerModule } from '../worker/worker-api.js';
import { BATCH_MODEL_WORKER, type BatchModelApi, type BatchModelInit, type ForwardRequest, type ModelFacts } from './batch-model-protocol.js';

interface Slot {
  worker: ModelWorker<BatchModelApi>;
  /** Calls sent to this slot and not answered yet. */
  busy: number;
}

export class BatchModel {
  readonly facts: ModelFacts;
  readonly #slots: Slot[];
  #disposed = false;

  private constructor(slots: Slot[], facts: ModelFacts) {
    this.#slots = slots;
    this.facts = facts;
  }

  /** `module` is the batch-model worker; tests pass a stand-in that can be made to crash. */
  static async start(
    init: BatchModelInit,
    name: string,
    workers = 1,
    module: WorkerModule<BatchModelApi, BatchModelInit> = BATCH_MODEL_WORKER,
  ): Promise<BatchModel> {
    const options = { init, modelId: name, name: `classification:${name}` };
    const started = await Promise.allSettled(Array.from({ length: workers }, () => ModelWorker.start(module, options)));
    const running = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    try {
      const failed = started.find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
      const facts = await (running[0] as ModelWorker<BatchModelApi>).call('facts');
      return new BatchModel(running.map((worker) => ({ worker, busy: 0 })), facts);
    } catch (error) {
      await Promise.all(running.map((worker) => worker.dispose()));
      throw error;
    }
  }

  async forward(texts: string[], pairs?: string[]): Promise<Float32Array[]> {
    if (this.#disposed) throw new Error('model was disposed');
    const slot = this.#slots.reduce((best, candidate) => (candidate.busy < best.busy ? candidate : best));
    slot.busy++;
    try {
      const request: ForwardRequest = pairs ? { texts, pairs } : { texts };
      const { data, width } = await slot.worker.call('forward', request);
      return Array.from({ length: texts.length }, (_, row) => data.subarray(row * width, (row + 1) * width));
    } finally {
      slot.busy--;
    }
  }

  async dispose(): Promise<void> {
    this.#disposed = true;
    await Promise.all(this.#slots.map((slot) => slot.worker.dispose()));
  }
}
