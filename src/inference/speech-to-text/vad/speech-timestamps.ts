/**
 * From per-frame speech probabilities to speech regions: a port of faster-whisper 1.2.1's
 * `get_speech_timestamps` after the model call (faster_whisper/vad.py), kept step for step so
 * the same probabilities give the same regions. Pure: the model part is silero-vad.ts.
 */
import type { VadOptions } from '../../types.js';

export type { VadOptions };

/** One 32 ms frame of Silero VAD at 16 kHz. */
export const VAD_FRAME_SAMPLES = 512;
export const VAD_SAMPLE_RATE = 16_000;

const DEFAULT_VAD_OPTIONS: Readonly<Required<Omit<VadOptions, 'negThreshold'>>> = Object.freeze({
  threshold: 0.5,
  minSpeechDurationMs: 0,
  maxSpeechDurationS: Number.POSITIVE_INFINITY,
  minSilenceDurationMs: 2000,
  speechPadMs: 400,
});

/** A speech region in samples of the original audio: [start, end). */
export interface SpeechChunk {
  start: number;
  end: number;
}

/**
 * Speech regions of audio of `audioLength` samples whose frame `i` (samples 512·i … 512·i+511)
 * has speech probability `probs[i]`.
 */
export function speechChunksFromProbs(probs: ArrayLike<number>, audioLength: number, options: VadOptions = {}, sampleRate = VAD_SAMPLE_RATE): SpeechChunk[] {
  const { threshold, minSpeechDurationMs, maxSpeechDurationS, minSilenceDurationMs, speechPadMs } = { ...DEFAULT_VAD_OPTIONS, ...definedOnly(options) };
  const negThreshold = options.negThreshold ?? Math.max(threshold - 0.15, 0.01);
  const window = VAD_FRAME_SAMPLES;
  const minSpeechSamples = (sampleRate * minSpeechDurationMs) / 1000;
  const speechPadSamples = (sampleRate * speechPadMs) / 1000;
  const maxSpeechSamples = sampleRate * maxSpeechDurationS - window - 2 * speechPadSamples;
  const minSilenceSamples = (sampleRate * minSilenceDurationMs) / 1000;
  const minSilenceSamplesAtMaxSpeech = (sampleRate * 98) / 1000;

  let triggered = false;
  const speeches: SpeechChunk[] = [];
  let current: Partial<SpeechChunk> = {};
  // A possible end of the current region (some silence is tolerated before it counts).
  let tempEnd = 0;
  // Where to split when a region reaches the maximum length.
  let prevEnd = 0;
  let nextStart = 0;

  for (let i = 0; i < probs.length; i++) {
    const prob = probs[i] as number;
    const at = window * i;
    if (prob >= threshold && tempEnd) {
      tempEnd = 0;
      if (nextStart < prevEnd) nextStart = at;
    }
    if (prob >= threshold && !triggered) {
      triggered = true;
      current.start = at;
      continue;
    }
    if (triggered && at - (current.start as number) > maxSpeechSamples) {
      if (prevEnd) {
        current.end = prevEnd;
        speeches.push(current as SpeechChunk);
        current = {};
        // Silence was reached (below negThreshold) and speech has not resumed (below threshold).
        if (nextStart < prevEnd) triggered = false;
        else current.start = nextStart;
        prevEnd = nextStart = tempEnd = 0;
      } else {
        current.end = at;
        speeches.push(current as SpeechChunk);
        current = {};
        prevEnd = nextStart = tempEnd = 0;
        triggered = false;
        continue;
      }
    }
    if (prob < negThreshold && triggered) {
      if (!tempEnd) tempEnd = at;
      // Only a silence this long is a place to split an over-long region.
      if (at - tempEnd > minSilenceSamplesAtMaxSpeech) prevEnd = tempEnd;
      if (at - tempEnd < minSilenceSamples) continue;
      current.end = tempEnd;
      if ((current.end as number) - (current.start as number) > minSpeechSamples) speeches.push(current as SpeechChunk);
      current = {};
      prevEnd = nextStart = tempEnd = 0;
      triggered = false;
    }
  }
  if (current.start !== undefined && audioLength - current.start > minSpeechSamples) {
    speeches.push({ start: current.start, end: audioLength });
  }

  return padChunks(speeches, speechPadSamples, audioLength);
}

/** Widens each region by the pad, or by half the gap when two regions are closer than two pads. */
function padChunks(speeches: SpeechChunk[], pad: number, audioLength: number): SpeechChunk[] {
  for (const [i, speech] of speeches.entries()) {
    if (i === 0) speech.start = Math.trunc(Math.max(0, speech.start - pad));
    const next = speeches[i + 1];
    if (next) {
      const silence = next.start - speech.end;
      if (silence < 2 * pad) {
        speech.end += Math.trunc(Math.floor(silence / 2));
        next.start = Math.trunc(Math.max(0, next.start - Math.floor(silence / 2)));
      } else {
        speech.end = Math.trunc(Math.min(audioLength, speech.end + pad));
        next.start = Math.trunc(Math.max(0, next.start - pad));
      }
    } else {
      speech.end = Math.trunc(Math.min(audioLength, speech.end + pad));
    }
  }
  return speeches;
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}
