/**
 * The Synthesizer the HTTP layer sees. It splits text into sentences (and a short first clause
 * off the first one, for a quick first byte) and asks the synthesis worker for one piece at a
 * time, keeping the next piece queued so the worker never waits for the caller to encode and
 * send the previous one. Engines with a separate text front end (Piper's espeak phonemizer)
 * get a second worker that prepares the next pieces while the model runs on the current one.
 * When the request's signal aborts, or the caller stops reading, the pieces still queued in
 * both workers are dropped; the piece being synthesised is the last one run.
 */
import { join } from 'node:path';
import type { PcmAudio } from '../../audio/pcm-audio.js';
import { InferenceFailedError } from '../../errors.js';
import { abortable, followSignal } from '../abortable.js';
import type { SynthesizeOptions, Synthesizer } from '../types.js';
import { WorkerClient, workerModuleUrl } from '../worker/worker-client.js';
import { findOnnx } from './find-onnx.js';
import { splitFirstClause, splitSentences } from './split-sentences.js';
import type { SynthesisWorkerInit } from './synthesis-worker-init.js';

const SYNTHESIS_WORKER = workerModuleUrl(import.meta.url, './synthesis-worker');
const PHONEMIZER_WORKER = workerModuleUrl(import.meta.url, './phonemizer-worker');
/** Pieces whose model input is prepared ahead of the one being synthesised. */
const FRONT_END_LOOKAHEAD = 2;

type PieceInput = { text: string } | { ids: number[] };

interface Workers {
  worker: WorkerClient;
  frontEnd: WorkerClient | undefined;
  sampleRate: number;
}

export class WorkerSynthesizer implements Synthesizer {
  readonly #init: SynthesisWorkerInit;
  readonly #name: string;
  #workers: Workers;
  /** Set while dead workers are being replaced, so concurrent requests share one restart. */
  #restarting: Promise<Workers> | undefined;
  #disposed = false;
  readonly sampleRate: number;

  private constructor(init: SynthesisWorkerInit, name: string, workers: Workers) {
    this.#init = init;
    this.#name = name;
    this.#workers = workers;
    this.sampleRate = workers.sampleRate;
  }

  static async spawn(init: SynthesisWorkerInit, name: string): Promise<WorkerSynthesizer> {
    if (init.engine === 'piper') init = { ...init, onnxFile: init.onnxFile ?? (await findOnnx(init.modelDir)) };
    return new WorkerSynthesizer(init, name, await WorkerSynthesizer.#start(init, name));
  }

  static async #start(init: SynthesisWorkerInit, name: string): Promise<Workers> {
    const piperConfig = init.engine === 'piper' ? join(init.modelDir, `${init.onnxFile}.json`) : undefined;
    const [worker, phonemizer] = await Promise.allSettled([
      WorkerClient.spawn(SYNTHESIS_WORKER, { init, name: `tts:${name}` }),
      piperConfig ? WorkerClient.spawn(PHONEMIZER_WORKER, { init: { configPath: piperConfig }, name: `tts-text:${name}` }) : undefined,
    ]);
    const started = [worker, phonemizer].flatMap((result) => (result.status === 'fulfilled' && result.value ? [result.value] : []));
    try {
      if (worker.status === 'rejected') throw worker.reason;
      if (phonemizer.status === 'rejected') throw phonemizer.reason;
      const { sampleRate } = await worker.value.call<{ sampleRate: number }>('info');
      return { worker: worker.value, frontEnd: phonemizer.value, sampleRate };
    } catch (error) {
      await Promise.allSettled(started.map((client) => client.dispose()));
      throw error;
    }
  }

  async *synthesize(text: string, options: SynthesizeOptions = {}): AsyncGenerator<PcmAudio> {
    // Aborts when the request's signal does and when the consumer stops early (return()): either
    // way the pieces still queued in the workers for this request are dropped there.
    const stop = new AbortController();
    const unfollow = followSignal(options.signal, stop);
    const { signal } = stop;
    try {
      const { worker, frontEnd } = await abortable(this.#alive(), signal);
      const [first, ...rest] = splitSentences(text);
      const pieces = first === undefined ? [] : [...splitFirstClause(first), ...rest];
      const inputs: Promise<PieceInput>[] = [];
      const input = (index: number) => (inputs[index] ??= this.#prepare(frontEnd, pieces[index] as string, signal));
      if (pieces.length > 0) input(0); // phonemise while the options are checked
      // Fail on a bad voice or speed before any audio is produced (the route can still answer 400).
      await this.#call(worker, 'checkOptions', { voice: options.voice, speed: options.speed }, signal);
      const piece = (index: number) => this.#synthesize(worker, input(index), options, signal);
      let next = pieces.length > 0 ? piece(0) : undefined;
      for (let index = 0; next; index++) {
        const current = next;
        for (let ahead = index + 1; ahead <= index + FRONT_END_LOOKAHEAD && ahead < pieces.length; ahead++) input(ahead);
        next = index + 1 < pieces.length ? piece(index + 1) : undefined;
        const samples = await current;
        if (samples.length > 0) yield { samples, sampleRate: this.sampleRate };
      }
    } finally {
      unfollow();
      stop.abort(new Error('speech synthesis was stopped'));
    }
  }

  async dispose(): Promise<void> {
    this.#disposed = true;
    const { worker, frontEnd } = await (this.#restarting ?? this.#workers);
    await Promise.allSettled([worker.dispose(), frontEnd?.dispose()]);
  }

  /** The workers, replaced first if one has died (crash, out of memory) since the last call. */
  async #alive(): Promise<Workers> {
    const current = this.#workers;
    if (this.#disposed || (current.worker.alive && (current.frontEnd?.alive ?? true))) return current;
    this.#restarting ??= (async () => {
      try {
        await Promise.allSettled([current.worker.dispose(), current.frontEnd?.dispose()]);
        return (this.#workers = await WorkerSynthesizer.#start(this.#init, this.#name));
      } finally {
        this.#restarting = undefined;
      }
    })();
    return this.#restarting;
  }

  /** A worker that dies mid-call answers 503 inference_failed; the next request restarts it. */
  async #call<T>(client: WorkerClient, method: string, payload: unknown, signal: AbortSignal): Promise<T> {
    try {
      return await client.call<T>(method, payload, { signal });
    } catch (error) {
      if (client.alive) throw error;
      throw new InferenceFailedError(this.#name, (error as Error).message);
    }
  }

  #prepare(frontEnd: WorkerClient | undefined, text: string, signal: AbortSignal): Promise<PieceInput> {
    const prepared = frontEnd ? this.#call<number[]>(frontEnd, 'ids', { text }, signal).then((ids) => ({ ids })) : Promise.resolve({ text });
    // If the consumer stops early (client went away), prepared pieces fail later, unread.
    prepared.catch(() => {});
    return prepared;
  }

  #synthesize(worker: WorkerClient, input: Promise<PieceInput>, options: SynthesizeOptions, signal: AbortSignal): Promise<Float32Array> {
    const pending = input.then((piece) =>
      this.#call<Float32Array>(worker, 'synthesize', { ...piece, speed: options.speed, voice: options.voice }, signal),
    );
    pending.catch(() => {});
    return pending;
  }
}
