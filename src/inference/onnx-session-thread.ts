/**
 * An onnxruntime-node session in a worker thread of its own, used like one in this thread
 * (inputNames, outputNames, run, release). onnxruntime-node computes a run synchronously on the
 * calling thread (its run() only defers the native call with setImmediate), so two sessions of
 * one thread never compute at once; a session moved here computes while the caller's thread
 * runs another, e.g. Whisper's encoder for the next windows while the decoder steps through the
 * current ones. Runs queue in the thread one at a time; inputs are copied there, outputs moved
 * back as onnxruntime-node tensors, as a session of this thread gives them.
 */
import { setMaxListeners } from 'node:events';
import { Tensor } from 'onnxruntime-node';
import type { OnnxSessionApi, OnnxSessionWorkerInit, WireTensor } from './onnx-session-thread-protocol.js';
import type { OrtTensor } from './ort-tensor.js';
import { ModelWorker } from './worker/model-worker.js';
import { workerModule } from './worker/worker-api.js';

const SESSION_WORKER = workerModule<OnnxSessionApi, OnnxSessionWorkerInit>(import.meta.url, './onnx-session-worker');

export class OnnxSessionThread {
  readonly #client: ModelWorker<OnnxSessionApi>;
  /** A signal of ours for each caller's signal (see #queued). */
  readonly #linked = new WeakMap<AbortSignal, AbortSignal>();
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];

  private constructor(client: ModelWorker<OnnxSessionApi>, names: { inputNames: string[]; outputNames: string[] }) {
    this.#client = client;
    this.inputNames = names.inputNames;
    this.outputNames = names.outputNames;
  }

  /**
   * Loads `init.onnxFile` in a new thread; rejects if the session cannot be created. A thread
   * that dies is replaced on the next run, and a run onnxruntime refuses or a thread that died
   * under it fails as 503 inference_failed naming `modelId` (ModelWorker).
   */
  static async start(init: OnnxSessionWorkerInit, name = 'onnx-session', modelId = name): Promise<OnnxSessionThread> {
    const client = await ModelWorker.start(SESSION_WORKER, { init, name, modelId });
    try {
      return new OnnxSessionThread(client, await client.call('names'));
    } catch (error) {
      await client.dispose();
      throw error;
    }
  }

  /** As a session's run, with `options.signal`: a run still queued when it aborts never starts. */
  async run(feeds: Record<string, OrtTensor>, fetches?: readonly string[], options?: { signal?: AbortSignal }): Promise<Record<string, Tensor>> {
    const wire: Record<string, WireTensor> = {};
    for (const [name, tensor] of Object.entries(feeds)) wire[name] = { type: tensor.type, data: tensor.data as ArrayBufferView, dims: tensor.dims };
    const signal = options?.signal && this.#queued(options.signal);
    const outputs = await this.#client.call('run', { feeds: wire, ...(fetches ? { fetches } : {}) }, { signal });
    return Object.fromEntries(
      Object.entries(outputs).map(([name, tensor]) => [name, new Tensor(tensor.type as 'float32', tensor.data as Float32Array, tensor.dims)]),
    );
  }

  /**
   * A signal following `signal`, for the runs it cancels: each queued run listens to its signal
   * until it ends, and one request's windows may queue more runs than Node's listener warning
   * allows, so they listen to ours, the caller's signal to one listener.
   */
  #queued(signal: AbortSignal): AbortSignal {
    let linked = this.#linked.get(signal);
    if (!linked) {
      linked = AbortSignal.any([signal]);
      setMaxListeners(0, linked);
      this.#linked.set(signal, linked);
    }
    return linked;
  }

  /** Frees the session and ends the thread. */
  async release(): Promise<void> {
    await this.#client.dispose();
  }
}
