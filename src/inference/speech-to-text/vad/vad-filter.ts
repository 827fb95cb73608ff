/**
 * `vad_filter` inside the ASR worker: Silero VAD finds the speech, and the speech regions become
 * windows of at most 30 s (speech-windows.ts) that are decoded one by one (decode-windows.ts),
 * with the silence between regions muted. Audio with no speech is not transcribed at all
 * (Whisper invents text for silence and noise; docs/benchmarks.md, "Speech to text").
 * faster-whisper instead joins the regions end to end and decodes them as one stream, where a
 * window that stops early seeks past unrelated speech and words are lost. Three more differences
 * from it, all for quiet speakers: the VAD's state restarts every 10 s (silero-vad.ts), the VAD
 * hears very quiet audio raised (vad-input-level.ts), and quiet regions are raised (regionGain).
 */
import type { PcmReader } from '../../../audio/pcm16-buffer.js';
import type { Transcript, VadOptions } from '../../types.js';
import { type SileroVad, TRANSCRIPTION_STATE_RESETS } from './silero-vad.js';
import { loadVadModel } from './vad-model.js';
import { speechChunksFromProbs, VAD_SAMPLE_RATE, type SpeechChunk } from './speech-timestamps.js';
import { vadLeveledReader } from './vad-input-level.js';
import { mergeRegions, WINDOW_SAMPLES, type GainedRegion, type SpeechWindow } from './speech-windows.js';

/** Audio longer than this is filtered unless the request says `vad_filter: false`. */
const VAD_DEFAULT_ABOVE_SECONDS = 30;

/** What an ASR request says about the filter; absent: off. */
export interface VadFilterRequest {
  /**
   * true: always; false: audio longer than VAD_DEFAULT_ABOVE_SECONDS is filtered, shorter audio
   * is transcribed whole unless the VAD hears no speech in it at all.
   */
  always: boolean;
  options: VadOptions;
}

/** Loads the VAD session on first use and runs the filter with it. */
export class VadFilter {
  readonly #onnxFile: string;
  #vad: Promise<SileroVad> | undefined;

  constructor(onnxFile: string) {
    this.#onnxFile = onnxFile;
  }

  /**
   * The speech windows of 16 kHz `samples` (empty: no speech), or undefined when the request
   * does not filter this audio (short audio, unless `always`, with some speech in it). The LSTM
   * state restarts every 10 s (TRANSCRIPTION_STATE_RESETS): quiet speech after loud speech is
   * otherwise lost whole; and the VAD hears very quiet stretches raised (vad-input-level.ts),
   * which it otherwise does not hear at all.
   */
  async speechWindows(
    samples: PcmReader,
    sampleRate: number,
    request: VadFilterRequest | undefined,
    signal?: AbortSignal,
  ): Promise<SpeechWindow[] | undefined> {
    if (!request || sampleRate !== VAD_SAMPLE_RATE) return undefined;
    // Short speech gains nothing from the filter (docs/api.md, "Why these defaults"), but with no
    // speech at all Whisper invents some ("you" for a third of a second of an MP3's start). That
    // check is not asked for: a VAD that cannot load leaves short audio to Whisper, as before it.
    const onlyCheck = !request.always && samples.length / sampleRate <= VAD_DEFAULT_ABOVE_SECONDS;
    const vad = await this.#load().catch((error: unknown) => {
      if (onlyCheck) return undefined;
      throw error;
    });
    if (!vad) return undefined;
    const probs = await vad.speechProbs(vadLeveledReader(samples), signal, undefined, TRANSCRIPTION_STATE_RESETS);
    const options = windowedVadOptions(request.options);
    if (onlyCheck) return speechChunksFromProbs(probs, samples.length, options).length === 0 ? [] : undefined;
    const islands = speechChunksFromProbs(probs, samples.length, islandVadOptions(options));
    return mergeRegions(
      speechChunksFromProbs(probs, samples.length, options).map((chunk) => gainedRegion(samples, chunk, islands)),
      WINDOW_SAMPLES,
      samples,
    );
  }

  /** The VAD session; a failed load is not kept, so a later request tries again. */
  #load(): Promise<SileroVad> {
    this.#vad ??= loadVadModel(this.#onnxFile).catch((error: unknown) => {
      this.#vad = undefined;
      throw error;
    });
    return this.#vad;
  }

  async dispose(): Promise<void> {
    const vad = this.#vad;
    this.#vad = undefined;
    await (await vad?.catch(() => undefined))?.dispose();
  }
}

/**
 * The request's VAD options with regions of at most one window (30 s with their pads): Silero's
 * own rule then cuts a longer stretch of speech at its last pause of ≥ 98 ms before the limit,
 * as WhisperX asks its Silero VAD to, so every window is a Whisper window and no decode has to
 * run across windows.
 */
export function windowedVadOptions(options: VadOptions): VadOptions {
  const maxSpeechDurationS = Math.min(options.maxSpeechDurationS ?? Number.POSITIVE_INFINITY, WINDOW_SAMPLES / VAD_SAMPLE_RATE);
  return { ...options, maxSpeechDurationS };
}

/**
 * The VAD's regions also span pauses of up to `minSilenceDurationMs` (2 s by default), so one can
 * hold a loud speaker and then a quiet one. The same probabilities read with short pauses ending
 * speech, and a shorter pad, give its utterances (islands), which are leveled on their own.
 */
const ISLAND_SILENCE_MS = 500;
const ISLAND_PAD_MS = 200;
/** An island is raised past its region's gain only when it needs more than this much more (6 dB). */
const ISLAND_RAISE_MARGIN = 2;

export function islandVadOptions(options: VadOptions): VadOptions {
  return {
    ...options,
    minSilenceDurationMs: Math.min(options.minSilenceDurationMs ?? ISLAND_SILENCE_MS, ISLAND_SILENCE_MS),
    speechPadMs: Math.min(options.speechPadMs ?? ISLAND_PAD_MS, ISLAND_PAD_MS),
  };
}

/** `chunk` at its gain, with the islands inside it, each raised on its own when notably quieter than the region. */
export function gainedRegion(samples: PcmReader, chunk: SpeechChunk, islands: readonly SpeechChunk[]): GainedRegion {
  const gain = regionGain(samples, chunk);
  const inside = islands.filter((island) => island.end > chunk.start && island.start < chunk.end);
  return {
    ...chunk,
    gain,
    islands: inside.map((island) => {
      const own = regionGain(samples, island);
      return { ...island, gain: own > ISLAND_RAISE_MARGIN * gain ? own : gain };
    }),
  };
}

/**
 * Quiet regions are raised towards REGION_TARGET_RMS. Whisper scales each 30-s window's log-mel
 * to its loudest part, so a quiet speaker in a window with a loud one goes unheard: such clips
 * came back empty, and raised they are transcribed (docs/benchmarks.md, "Speech to text").
 * Loud regions are left as they are. -26 dBFS RMS: ordinary speech sits around -16 to -30 dBFS.
 */
export const REGION_TARGET_RMS = 0.05;
/** 40 dB at most, so a region of near-silence is not made into loud noise. */
export const REGION_MAX_GAIN = 100;
/** Regions are measured 30 s at a time, so a long one never becomes one big Float32 copy. */
const LEVEL_BLOCK_SAMPLES = 30 * VAD_SAMPLE_RATE;

/** The gain (≥ 1) that brings a region's RMS up to REGION_TARGET_RMS, capped at REGION_MAX_GAIN. */
export function regionGain(samples: PcmReader, chunk: SpeechChunk): number {
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
