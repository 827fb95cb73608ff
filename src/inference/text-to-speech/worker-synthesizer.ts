/**
 * The Synthesizer the HTTP layer sees. It splits text into sentences (and a short first clause
 * off the first one, for a quick first byte) and asks the synthesis worker for one piece at a
 * time, keeping the next piece queued in the worker so the worker never waits for the caller
 * to encode and send the previous one.
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PcmAudio } from '../../audio/pcm-audio.js';
import type { SynthesizeOptions, Synthesizer } from '../types.js';
import { WorkerClient } from '../worker/worker-client.js';
import { splitFirstClause, splitSentences } from './split-sentences.js';
import type { SynthesisWorkerInit } from './synthesis-worker-init.js';

const WORKER_URL = new URL(`./synthesis-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

export class WorkerSynthesizer implements Synthesizer {
  readonly #worker: WorkerClient;
  readonly sampleRate: number;

  private constructor(worker: WorkerClient, sampleRate: number) {
    this.#worker = worker;
    this.sampleRate = sampleRate;
  }

  static async spawn(init: SynthesisWorkerInit, name: string): Promise<WorkerSynthesizer> {
    const worker = await WorkerClient.spawn(WORKER_URL, { init, name: `tts:${name}` });
    try {
      const { sampleRate } = await worker.call<{ sampleRate: number }>('info');
      return new WorkerSynthesizer(worker, sampleRate);
    } catch (error) {
      await worker.dispose();
      throw error;
    }
  }

  async *synthesize(text: string, options: SynthesizeOptions = {}): AsyncGenerator<PcmAudio> {
    // Fail on a bad voice or speed before any audio is produced (the route can still answer 400).
    await this.#worker.call('checkOptions', { voice: options.voice, speed: options.speed });
    const [first, ...rest] = splitSentences(text);
    const sentences = first === undefined ? [] : [...splitFirstClause(first), ...rest];
    let next = sentences.length > 0 ? this.#sentence(sentences[0] as string, options) : undefined;
    for (let index = 0; next; index++) {
      const current = next;
      next = index + 1 < sentences.length ? this.#sentence(sentences[index + 1] as string, options) : undefined;
      const samples = await current;
      if (samples.length > 0) yield { samples, sampleRate: this.sampleRate };
    }
  }

  async dispose(): Promise<void> {
    await this.#worker.dispose();
  }

  #sentence(text: string, options: SynthesizeOptions): Promise<Float32Array> {
    const pending = this.#worker.call<Float32Array>('synthesize', { text, speed: options.speed, voice: options.voice });
    // If the consumer stops early (client went away), a queued sentence may still fail later.
    pending.catch(() => {});
    return pending;
  }
}
