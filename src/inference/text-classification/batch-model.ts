/**
 * A tokenizer + ONNX model served by one or more worker threads (each its own ONNX session),
 * called one batch at a time per worker: `forward(texts)` returns one row per text (logits, or
 * pooled sentence embeddings) from the least busy worker. If a worker dies (e.g. out of memory),
 * its batch rejects and the next call on that slot starts a fresh one, so one crash does not
 * leave the model answering 500 until a restart.
 */
import { WorkerClient, workerModuleUrl } from '../worker/worker-client.js';
import type { BatchModelInit, ForwardRequest, ForwardResult, ModelFacts } from './batch-model-protocol.js';

const WORKER_URL = workerModuleUrl(import.meta.url, './batch-model-worker');

interface Slot {
  worker: Promise<WorkerClient>;
  /** Calls sent to this slot and not answered yet. */
  busy: number;
}

export class BatchModel {
  readonly facts: ModelFacts;
  readonly #spawn: () => Promise<WorkerClient>;
  readonly #slots: Slot[];
  #disposed = false;

  private constructor(workers: WorkerClient[], facts: ModelFacts, spawn: () => Promise<WorkerClient>) {
    this.#slots = workers.map((worker) => ({ worker: Promise.resolve(worker), busy: 0 }));
    this.facts = facts;
    this.#spawn = spawn;
  }

  static async start(init: BatchModelInit, name: string, workers = 1): Promise<BatchModel> {
    const spawn = () => WorkerClient.spawn(WORKER_URL, { init, name: `classification:${name}` });
    const started = await Promise.allSettled(Array.from({ length: workers }, spawn));
    const clients = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    try {
      const failed = started.find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
      return new BatchModel(clients, await (clients[0] as WorkerClient).call<ModelFacts>('facts'), spawn);
    } catch (error) {
      await Promise.all(clients.map((client) => client.dispose()));
      throw error;
    }
  }

  async forward(texts: string[], pairs?: string[]): Promise<Float32Array[]> {
    if (this.#disposed) throw new Error('model was disposed');
    const slot = this.#slots.reduce((best, candidate) => (candidate.busy < best.busy ? candidate : best));
    slot.busy++;
    try {
      let worker = await slot.worker.catch(() => undefined);
      if (!worker?.alive) {
        slot.worker = this.#spawn();
        worker = await slot.worker;
      }
      const request: ForwardRequest = pairs ? { texts, pairs } : { texts };
      const { data, width } = await worker.call<ForwardResult>('forward', request);
      return Array.from({ length: texts.length }, (_, row) => data.subarray(row * width, (row + 1) * width));
    } finally {
      slot.busy--;
    }
  }

  async dispose(): Promise<void> {
    this.#disposed = true;
    await Promise.all(
      this.#slots.map(async (slot) => {
        const worker = await slot.worker.catch(() => undefined);
        if (!worker) return;
        await worker.call('dispose').catch(() => undefined);
        await worker.dispose();
      }),
    );
  }
}
