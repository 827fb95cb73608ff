/**
 * A tokenizer + ONNX model served by one or more worker threads (each its own ONNX session),
 * called one batch at a time per worker: `forward(texts)` returns one row per text (logits, or
 * pooled sentence embeddings) from the least busy worker. If a worker dies (e.g. out of memory),
 * its batch rejects with 503 inference_failed and the next call on that slot starts a fresh one,
 * so one crash does not leave the model failing until a restart.
 */
import { InferenceFailedError } from '../../errors.js';
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
  readonly #modelId: string;
  readonly #spawn: () => Promise<WorkerClient>;
  readonly #slots: Slot[];
  #disposed = false;

  private constructor(modelId: string, workers: WorkerClient[], facts: ModelFacts, spawn: () => Promise<WorkerClient>) {
    this.#slots = workers.map((worker) => ({ worker: Promise.resolve(worker), busy: 0 }));
    this.facts = facts;
    this.#modelId = modelId;
    this.#spawn = spawn;
  }

  /** `workerUrl` is the batch-model worker; tests pass a stand-in that can be made to crash. */
  static async start(init: BatchModelInit, name: string, workers = 1, workerUrl = WORKER_URL): Promise<BatchModel> {
    const spawn = () => WorkerClient.spawn(workerUrl, { init, name: `classification:${name}` });
    const started = await Promise.allSettled(Array.from({ length: workers }, spawn));
    const clients = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    try {
      const failed = started.find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
      return new BatchModel(name, clients, await (clients[0] as WorkerClient).call<ModelFacts>('facts'), spawn);
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
      const worker = await this.#liveWorker(slot);
      const request: ForwardRequest = pairs ? { texts, pairs } : { texts };
      const { data, width } = await worker.call<ForwardResult>('forward', request).catch((error: unknown) => {
        // A dead worker is the model failing, not the request: 503, and the next call gets a fresh worker.
        throw worker.alive ? error : new InferenceFailedError(this.#modelId, (error as Error).message);
      });
      return Array.from({ length: texts.length }, (_, row) => data.subarray(row * width, (row + 1) * width));
    } finally {
      slot.busy--;
    }
  }

  /** The slot's worker, or a fresh one in its place if it died. */
  async #liveWorker(slot: Slot): Promise<WorkerClient> {
    const worker = await slot.worker.catch(() => undefined);
    if (worker?.alive) return worker;
    slot.worker = this.#spawn();
    return slot.worker;
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
