/** Runs decodeAudio or resample in a worker (isolated-audio-worker.ts) under a time cap, measuring the process's peak memory. */
import type { DecodeAudioOptions } from '../../src/audio/decode-audio.js';
import { workerModule, type PayloadOf } from '../../src/inference/worker/worker-api.js';
import { WorkerClient } from '../../src/inference/worker/worker-client.js';
import type { AudioSummary, IsolatedAudioApi } from './isolated-audio-worker.js';

const ISOLATED_AUDIO_WORKER = workerModule<IsolatedAudioApi>(import.meta.url, './isolated-audio-worker');

export type { AudioSummary };

export class TimedOutError extends Error {
  override name = 'TimedOutError';
}

export interface IsolatedResult {
  /** The call's summary, or what it threw (AppErrors keep their class across the worker). */
  outcome: { ok: true; summary: AudioSummary } | { ok: false; error: Error };
  /** Highest resident set size of the whole process during the call, minus the size before it. */
  peakRssGrowth: number;
  milliseconds: number;
}

export class IsolatedAudio {
  #client: WorkerClient<IsolatedAudioApi> | undefined;

  decode(bytes: Uint8Array, options: DecodeAudioOptions, timeoutMs: number): Promise<IsolatedResult> {
    return this.#run('decode', { bytes, options }, timeoutMs);
  }

  /** decodeAudio16 (the ASR worker's decode) instead of decodeAudio. */
  decode16(bytes: Uint8Array, options: DecodeAudioOptions, timeoutMs: number): Promise<IsolatedResult> {
    return this.#run('decode16', { bytes, options }, timeoutMs);
  }

  /** Resamples `length` samples of a constant signal. */
  resample(length: number, fromRate: number, toRate: number, timeoutMs: number): Promise<IsolatedResult> {
    return this.#run('resample', { length, fromRate, toRate }, timeoutMs);
  }

  async close(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    await client?.dispose();
  }

  /**
   * Past `timeoutMs` the worker is terminated (a synchronous loop cannot be interrupted any
   * other way) and the outcome is a TimedOutError; the next call starts a fresh worker.
   */
  async #run<M extends 'decode' | 'decode16' | 'resample'>(method: M, payload: PayloadOf<IsolatedAudioApi, M>, timeoutMs: number): Promise<IsolatedResult> {
    const client = (this.#client ??= await WorkerClient.spawn(ISOLATED_AUDIO_WORKER, { init: undefined, name: 'isolated-audio' }));
    const rssBefore = process.memoryUsage.rss();
    let peak = rssBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TimedOutError(`${method} still running after ${timeoutMs} ms`)), timeoutMs);
    });
    let outcome: IsolatedResult['outcome'];
    try {
      outcome = {
        ok: true,
        summary: await Promise.race([(client.call as (method: M, payload: PayloadOf<IsolatedAudioApi, M>) => Promise<AudioSummary>)(method, payload), timeout]),
      };
    } catch (error) {
      outcome = { ok: false, error: error as Error };
      if (error instanceof TimedOutError || !client.alive) await this.close();
    } finally {
      clearTimeout(timer);
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage.rss());
    return { outcome, peakRssGrowth: peak - rssBefore, milliseconds: performance.now() - started };
  }
}
