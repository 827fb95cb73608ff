/**
 * `vad_filter` inside the ASR worker, as faster-whisper does it: Silero VAD finds the speech,
 * the speech regions are joined end to end and only they are transcribed, and the segment times
 * are mapped back to the original audio. Audio with no speech is not transcribed at all (Whisper
 * invents text for silence and noise; docs/benchmarks.md, "Speech to text"). Two differences from
 * faster-whisper, both for quiet speakers: the VAD's state restarts every 10 s (silero-vad.ts),
 * and quiet regions are raised before they are joined (joinRegions).
 */
import type { Pcm16Buffer } from '../../audio/pcm16-buffer.js';
import type { Transcript, VadOptions } from '../types.js';
import { SileroVad, TRANSCRIPTION_STATE_RESETS } from './silero-vad.js';
import { DEFAULT_VAD_OPTIONS, SpeechTimestampsMap, VAD_SAMPLE_RATE, type SpeechChunk } from './speech-timestamps.js';

/** Audio longer than this is filtered unless the request says `vad_filter: false`. */
const VAD_DEFAULT_ABOVE_SECONDS = 30;

/** What an ASR request says about the filter; absent: off. */
export interface VadFilterRequest {
  /** true: always; false: only audio longer than VAD_DEFAULT_ABOVE_SECONDS. */
  always: boolean;
  options: VadOptions;
}

/** The speech-only audio and how to put its transcript back on the original time line. */
interface SpeechOnly {
  /** The speech regions joined end to end: the input buffer, compacted; empty: no speech. */
  samples: Pcm16Buffer;
  /** Maps a transcript of `samples` to the original audio (times, and its duration). */
  restore(transcript: Transcript): Transcript;
}

/** Loads the VAD session on first use and runs the filter with it. */
export class VadFilter {
  readonly #onnxFile: string;
  #vad: Promise<SileroVad> | undefined;

  constructor(onnxFile: string) {
    this.#onnxFile = onnxFile;
  }

  /**
   * The speech of 16 kHz `samples`, or undefined when the request does not filter this audio.
   * When it filters, `samples` itself becomes the speech (see joinRegions). The LSTM state
   * restarts every 10 s (TRANSCRIPTION_STATE_RESETS): quiet speech after loud speech is
   * otherwise lost whole.
   */
  async speechOnly(samples: Pcm16Buffer, sampleRate: number, request: VadFilterRequest | undefined, signal?: AbortSignal): Promise<SpeechOnly | undefined> {
    if (!request || sampleRate !== VAD_SAMPLE_RATE) return undefined;
    if (!request.always && samples.length / sampleRate <= VAD_DEFAULT_ABOVE_SECONDS) return undefined;
    // A failed load is not kept, so a later request tries again.
    this.#vad ??= SileroVad.load(this.#onnxFile).catch((error: unknown) => {
      this.#vad = undefined;
      throw error;
    });
    const chunks = await (await this.#vad).speechChunks(samples, request.options, signal, TRANSCRIPTION_STATE_RESETS);
    const map = new SpeechTimestampsMap(chunks, sampleRate);
    const pad = (request.options.speechPadMs ?? DEFAULT_VAD_OPTIONS.speechPadMs) / 1000;
    const duration = samples.length / sampleRate;
    return {
      samples: joinRegions(samples, chunks),
      restore: (transcript) => ({
        ...transcript,
        duration: roundMs(duration),
        ...(transcript.segments
          ? {
              segments: transcript.segments.map((segment) => {
                const start = originalStart(map, segment.start, segment.end, pad);
                const restored = { ...segment, start, end: Math.max(start, originalEnd(map, segment.start, segment.end, pad)) };
                // Words move as segments do (faster-whisper maps each word's start and end alike).
                if (segment.words) {
                  restored.words = segment.words.map((word) => {
                    const wordStart = originalStart(map, word.start, word.end, pad);
                    return { ...word, start: wordStart, end: Math.max(wordStart, originalEnd(map, word.start, word.end, pad)) };
                  });
                }
                return restored;
              }),
            }
          : {}),
      }),
    };
  }

  async dispose(): Promise<void> {
    const vad = this.#vad;
    this.#vad = undefined;
    await (await vad?.catch(() => undefined))?.dispose();
  }
}

/**
 * A segment's end in the original audio. Unlike faster-whisper, an end that falls in the leading
 * pad of a later region (the silence VAD keeps around speech) ends the speech before that pad:
 * Whisper often stamps the end of a sentence a little past it, and mapped into the next region
 * it would stretch the segment over the whole silence that was cut.
 */
export function originalEnd(map: SpeechTimestampsMap, start: number, end: number, padSeconds: number): number {
  const index = map.chunkIndex(end, true);
  const regionStart = map.joinedStart(index);
  if (index > map.chunkIndex(start) && end - regionStart < padSeconds) return map.originalTime(regionStart, index - 1);
  return map.originalTime(end, index);
}

/**
 * A segment's start in the original audio; the mirror of originalEnd: a start in the trailing pad
 * of a region, for a segment that ends in a later one, is the start of the next region (Whisper
 * stamps a sentence's start where the previous one ended, across the silence that was cut).
 */
export function originalStart(map: SpeechTimestampsMap, start: number, end: number, padSeconds: number): number {
  const index = map.chunkIndex(start);
  const regionEnd = map.joinedStart(index + 1);
  if (map.chunkIndex(end, true) > index && regionEnd - start < padSeconds) return map.originalTime(regionEnd, index + 1);
  return map.originalTime(start, index);
}

/**
 * Turns `samples` into its speech regions joined end to end (faster-whisper's collect_chunks
 * without a maximum), in place: the whole upload's PCM is not kept beside the speech. Each quiet
 * region is raised towards REGION_TARGET_RMS first. Whisper scales each 30-s window's log-mel to
 * its loudest part, so a quiet speaker joined right after a loud one goes unheard: such clips came
 * back empty, and raised they are transcribed (docs/benchmarks.md, "Speech to text"). Loud
 * regions are left as they are.
 */
export function joinRegions(samples: Pcm16Buffer, chunks: readonly SpeechChunk[]): Pcm16Buffer {
  const gains = chunks.map((chunk) => regionGain(samples, chunk));
  samples.keepRanges(chunks, gains);
  return samples;
}

/** -26 dBFS RMS: ordinary speech recordings sit around -16 to -30 dBFS. */
export const REGION_TARGET_RMS = 0.05;
/** 40 dB at most, so a region of near-silence is not made into loud noise. */
export const REGION_MAX_GAIN = 100;
/** Regions are measured 30 s at a time, so a long one never becomes one big Float32 copy. */
const LEVEL_BLOCK_SAMPLES = 30 * VAD_SAMPLE_RATE;

/** The gain (≥ 1) that brings a region's RMS up to REGION_TARGET_RMS, capped at REGION_MAX_GAIN. */
export function regionGain(samples: Pcm16Buffer, chunk: SpeechChunk): number {
  let sum = 0;
  for (let from = chunk.start; from < chunk.end; from += LEVEL_BLOCK_SAMPLES) {
    const pcm = samples.read(from, Math.min(chunk.end, from + LEVEL_BLOCK_SAMPLES));
    for (let i = 0; i < pcm.length; i++) sum += pcm[i]! * pcm[i]!;
  }
  const rms = Math.sqrt(sum / Math.max(1, chunk.end - chunk.start));
  if (rms >= REGION_TARGET_RMS) return 1;
  return rms === 0 ? 1 : Math.min(REGION_MAX_GAIN, REGION_TARGET_RMS / rms);
}

/** What audio without speech transcribes to: nothing. */
export function silentTranscript(duration: number, options: { language?: string; segments: boolean }): Transcript {
  return {
    text: '',
    duration: roundMs(duration),
    ...(options.language ? { language: options.language } : {}),
    ...(options.segments ? { segments: [] } : {}),
  };
}

function roundMs(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
