/**
 * A tokenizer + ONNX model served by one or more worker threads (each its own ONNX session),
 * called one batch at a time per worker: `forward(texts)` returns one row per text (logits, or
 * pooled sentence embeddings) from the least busy worker. If a worker dies (e.g. out of memory),
 * its batch rejects with 503 inference_failed and the next call on that slot starts a fresh one,
 * so one crash does not leave the model failing until a restart.
 *
 * Optionally one more worker holds a "solo" session whose intra-op threads span every core: it
 * serves only lone requests (one text while nothing else runs), where one-thread sessions would
 * leave cores idle. Under load the one-thread workers run side by side, which uses the cores
 * better than threads inside one run. Whether the solo session is really faster for a lone
 * request depends on what else the machine is doing; LoneRunChooser decides by measured latency.
 */
import { ModelWorker } from '../worker/model-worker.js';
import type { WorkerModule } from '../worker/worker-api.js';
import { BATCH_MODEL_WORKER, type BatchModelApi, type BatchModelInit, type ForwardRequest, type ModelFacts } from './batch-model-protocol.js';
import { LoneRunChooser } from './lone-run-chooser.js';

/**
 * How long the solo session's idle threads spin before they sleep, within a run and after it. A
 * client sending its next text as soon as the last is answered comes back within a fraction of a
 * millisecond, and finds the threads still awake, as it does with onnxruntime's default spin (what
 * Python's session keeps); but that spin outlasts a run by far and would hold a core after every lone
 * request, so it is bounded to this. Figures in docs/benchmarks.md.
 */
const SOLO_SPIN_US = 1000;

/** The solo session's settings: `threads` intra-op threads, spinning as SOLO_SPIN_US says. */
export function soloInit(init: BatchModelInit, threads: number): BatchModelInit {
  return { ...init, threads, spinning: SOLO_SPIN_US, stopSpinningAfterRun: false };
}

interface Slot {
  worker: ModelWorker<BatchModelApi>;
  /** Calls sent to this slot and not answered yet. */
  busy: number;
}

interface BatchModelLayout {
  /** Workers serving every batch, each a session with `init.threads` intra-op threads. */
  workers: number;
  /** Intra-op threads of the solo session; 0 or absent: no solo worker. */
  soloThreads?: number;
}

export class BatchModel {
  readonly facts: ModelFacts;
  readonly #slots: Slot[];
  readonly #solo: Slot | undefined;
  readonly #chooser = new LoneRunChooser();
  #disposed = false;

  private constructor(slots: Slot[], solo: Slot | undefined, facts: ModelFacts) {
    this.#slots = slots;
    this.#solo = solo;
    this.facts = facts;
  }

  /** `module` is the batch-model worker; tests pass a stand-in that can be made to crash. */
  static async start(
    init: BatchModelInit,
    name: string,
    layout: BatchModelLayout = { workers: 1 },
    module: WorkerModule<BatchModelApi, BatchModelInit> = BATCH_MODEL_WORKER,
  ): Promise<BatchModel> {
    const options = { init, modelId: name, name: `classification:${name}` };
    const inits = Array.from({ length: layout.workers }, () => options);
    if (layout.soloThreads) {
      inits.push({ ...options, init: soloInit(init, layout.soloThreads), name: `classification:${name}:solo` });
    }
    const started = await Promise.allSettled(inits.map((workerOptions) => ModelWorker.start(module, workerOptions)));
    const running = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    try {
      const failed = started.find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
      const facts = await (running[0] as ModelWorker<BatchModelApi>).call('facts');
      const slots = running.map((worker) => ({ worker, busy: 0 }));
      return new BatchModel(slots.slice(0, layout.workers), slots[layout.workers], facts);
    } catch (error) {
      await Promise.all(running.map((worker) => worker.dispose()));
      throw error;
    }
  }

  async forward(texts: string[], pairs?: string[]): Promise<Float32Array[]> {
    if (this.#disposed) throw new Error('model was disposed');
    const request: ForwardRequest = pairs ? { texts, pairs } : { texts };
    if (texts.length === 1 && this.#solo && this.#idle()) return this.#forwardLone(request, this.#solo);
    const slot = this.#leastBusy();
    // Every worker busy: the micro-batcher's slot kept for requests (a batch's lines fill the others).
    if (slot.busy > 0 && this.#solo?.busy === 0) return this.#forwardOn(this.#solo, request);
    return this.#forwardOn(slot, request);
  }

  /** One text while nothing else runs: on the solo session or a one-thread one, whichever is faster now. */
  async #forwardLone(request: ForwardRequest, solo: Slot): Promise<Float32Array[]> {
    const side = this.#chooser.choose();
    const started = performance.now();
    const rows = await this.#forwardOn(side === 'solo' ? solo : this.#leastBusy(), request);
    this.#chooser.record(side, performance.now() - started);
    return rows;
  }

  async #forwardOn(slot: Slot, request: ForwardRequest): Promise<Float32Array[]> {
    slot.busy++;
    try {
      const { data, width } = await slot.worker.call('forward', request);
      return Array.from({ length: request.texts.length }, (_, row) => data.subarray(row * width, (row + 1) * width));
    } finally {
      slot.busy--;
    }
  }

  #idle(): boolean {
    return this.#slots.every((slot) => slot.busy === 0) && this.#solo?.busy === 0;
  }

  #leastBusy(): Slot {
    return this.#slots.reduce((best, candidate) => (candidate.busy < best.busy ? candidate : best));
  }

  async dispose(): Promise<void> {
    this.#disposed = true;
    await Promise.all([...this.#slots, ...(this.#solo ? [this.#solo] : [])].map((slot) => slot.worker.dispose()));
  }
}
