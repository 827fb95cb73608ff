/**
 * decodeAudio and resample in a worker thread, for tests that must survive a call that hangs
 * or eats memory (the code before a fix, a fuzz case that finds a bug): the main thread keeps
 * its event loop, times the call out, watches the process's memory and terminates the worker.
 * Results come back as summaries, not sample arrays.
 */
import { decodeAudio, decodeAudio16, type DecodeAudioOptions } from '../../src/audio/decode-audio.js';
import { quietDecoderLogs } from '../../src/audio/quiet-decoder-logs.js';
import { resample } from '../../src/audio/resample.js';
import { serveWorker } from '../../src/inference/worker/serve-worker.js';

export interface AudioSummary {
  length: number;
  sampleRate: number;
  /** Every sample is a finite number. */
  finite: boolean;
  /** Largest finite magnitude. */
  peak: number;
  /** decode16 only: bytes the 16-bit PCM holds. */
  byteLength?: number;
}

function summarise(samples: Float32Array, sampleRate: number): AudioSummary {
  let finite = true;
  let peak = 0;
  for (const sample of samples) {
    if (!Number.isFinite(sample)) finite = false;
    else peak = Math.max(peak, Math.abs(sample));
  }
  return { length: samples.length, sampleRate, finite, peak };
}

export interface IsolatedAudioApi {
  decode(request: { bytes: Uint8Array; options: DecodeAudioOptions }): Promise<AudioSummary>;
  /** decodeAudio16, summarised a minute at a time (never one Float32 copy of the whole). */
  decode16(request: { bytes: Uint8Array; options: DecodeAudioOptions }): Promise<AudioSummary>;
  resample(request: { length: number; fromRate: number; toRate: number }): Promise<AudioSummary>;
}

serveWorker<IsolatedAudioApi>(() => {
  quietDecoderLogs();
  return {
    decode: async ({ bytes, options }) => {
      const { samples, sampleRate } = await decodeAudio(bytes, options);
      return summarise(samples, sampleRate);
    },
    decode16: async ({ bytes, options }) => {
      const pcm = await decodeAudio16(bytes, options);
      const summary: AudioSummary = { length: pcm.length, sampleRate: options.sampleRate, finite: true, peak: 0, byteLength: pcm.byteLength };
      const minute = 60 * options.sampleRate;
      for (let from = 0; from < pcm.length; from += minute) {
        const part = summarise(pcm.read(from, from + minute), options.sampleRate);
        summary.finite &&= part.finite;
        summary.peak = Math.max(summary.peak, part.peak);
      }
      return summary;
    },
    resample: ({ length, fromRate, toRate }) => summarise(resample(new Float32Array(length).fill(0.25), fromRate, toRate), toRate),
  };
});
