/**
 * VAD regions as independent Whisper windows (WhisperX's merge_chunks): consecutive speech
 * regions are merged greedily into windows of at most 30 s, each window is decoded on its own,
 * and its times are put back on the original timeline by adding the window's start. Unlike
 * joining every region end to end (faster-whisper's collect_chunks), no window holds speech that
 * is far apart in the audio, so a decode that stops early cannot seek over unrelated speech, and
 * no time needs a silence map to come back. Pure: the audio is read through a PcmReader.
 */
import type { PcmReader } from '../../../audio/pcm16-buffer.js';
import type { SpeechChunk } from './speech-timestamps.js';

/** A speech region (samples of the original audio) and the gain its samples are read with. */
export interface GainedRegion extends SpeechChunk {
  /** ≥ 1: quiet speakers are raised (vad-filter.ts, regionGain). */
  gain: number;
  /**
   * The utterances the region holds (ascending; only their parts inside the region count): what
   * the VAD hears as speech when short pauses end it too. Each is read at its own gain, so a quiet
   * speaker after a loud one in the same region is raised (vad-filter.ts, gainedRegion), and
   * only they count as speech a decode left uncovered (decode-windows.ts). Absent: the whole
   * region is one utterance.
   */
  islands?: readonly GainedChunk[];
}

/** Samples [start, end) and the gain they are read with. */
interface GainedChunk extends SpeechChunk {
  gain: number;
}

/** One window: samples [start, end) of the original audio, of which only `regions` are heard. */
export interface SpeechWindow {
  start: number;
  end: number;
  /** Ascending, inside [start, end); the audio between them is read as silence. */
  regions: readonly GainedRegion[];
}

/** Whisper's window: 30 s at 16 kHz. */
export const WINDOW_SAMPLES = 30 * 16_000;

/**
 * Regions (ascending, not overlapping) merged into windows of at most `maxSamples`: a region
 * joins the current window while the window would still end within `maxSamples` of its start,
 * so windows break only at the pauses between regions. A region longer than `maxSamples` (the
 * VAD was asked not to make one, see vad-filter.ts) is cut into pieces first (splitLongRegion).
 */
export function mergeRegions(regions: readonly GainedRegion[], maxSamples = WINDOW_SAMPLES, source?: PcmReader): SpeechWindow[] {
  const windows: SpeechWindow[] = [];
  let current: GainedRegion[] = [];
  for (const region of regions.flatMap((r) => splitLongRegion(r, maxSamples, source))) {
    if (current.length > 0 && region.end - current[0]!.start > maxSamples) {
      windows.push(windowOf(current));
      current = [];
    }
    current.push(region);
  }
  if (current.length > 0) windows.push(windowOf(current));
  return windows;
}

function windowOf(regions: GainedRegion[]): SpeechWindow {
  return { start: regions[0]!.start, end: regions.at(-1)!.end, regions };
}

/** Energy is compared over 100 ms at 16 kHz, in 10-ms steps. */
const ENERGY_SPAN = 1600;
const ENERGY_HOP = 160;

/**
 * A region of at most `maxSamples`, or the region cut into such pieces, each cut at the quietest
 * 100 ms of the last third of the piece (a pause between words, when there is one), or at the
 * limit when there is no audio to measure.
 */
export function splitLongRegion(region: GainedRegion, maxSamples: number, source?: PcmReader): GainedRegion[] {
  const pieces: GainedRegion[] = [];
  let start = region.start;
  while (region.end - start > maxSamples) {
    const cut = source ? quietestPoint(source, start + Math.floor((maxSamples * 2) / 3), start + maxSamples) : start + maxSamples;
    pieces.push({ ...region, start, end: cut });
    start = cut;
  }
  pieces.push({ ...region, start });
  return pieces;
}

/** The middle of the quietest 100 ms within [from, to). */
function quietestPoint(source: PcmReader, from: number, to: number): number {
  const pcm = source.read(from, to);
  let best = to;
  let bestEnergy = Number.POSITIVE_INFINITY;
  for (let at = 0; at + ENERGY_SPAN <= pcm.length; at += ENERGY_HOP) {
    let energy = 0;
    for (let i = at; i < at + ENERGY_SPAN; i++) energy += pcm[i]! * pcm[i]!;
    if (energy < bestEnergy) {
      bestEnergy = energy;
      best = from + at + ENERGY_SPAN / 2;
    }
  }
  return best;
}

/**
 * The window's audio as a reader from its start: its regions at their gains, silence between
 * them. A read allocates only what it returns, so an hour is still read a window at a time.
 */
export function windowReader(source: PcmReader, window: SpeechWindow): PcmReader {
  return {
    length: window.end - window.start,
    read(start, end) {
      const from = window.start + Math.max(0, start);
      const to = window.start + Math.min(end, window.end - window.start);
      const out = new Float32Array(Math.max(0, to - from));
      for (const region of window.regions) {
        const a = Math.max(from, region.start);
        const b = Math.min(to, region.end);
        if (a >= b) continue;
        const pcm = source.read(a, b);
        if (region.gain === 1) out.set(pcm, a - from);
        else amplify(pcm, region.gain, out, a - from);
        for (const island of region.islands ?? []) {
          const c = Math.max(a, island.start);
          const d = Math.min(b, island.end);
          if (c < d && island.gain !== region.gain) amplify(pcm.subarray(c - a, d - a), island.gain, out, c - from);
        }
      }
      return out;
    },
  };
}

function amplify(pcm: Float32Array, gain: number, out: Float32Array, at: number): void {
  for (let i = 0; i < pcm.length; i++) out[at + i] = Math.max(-1, Math.min(1, pcm[i]! * gain));
}

/** The samples of `region`'s utterances (its islands, or the whole region) within [from, to), as pieces of it. */
export function utterancesWithin(region: GainedRegion, from: number, to: number): SpeechChunk[] {
  const start = Math.max(region.start, from);
  const end = Math.min(region.end, to);
  return (region.islands ?? [region])
    .map((island) => ({ start: Math.max(start, island.start), end: Math.min(end, island.end) }))
    .filter((piece) => piece.end > piece.start);
}

/** The first `maxSamples` of speech, regions joined end to end (what language identification listens to). */
export function leadingSpeech(source: PcmReader, windows: readonly SpeechWindow[], maxSamples = WINDOW_SAMPLES): Float32Array {
  const out = new Float32Array(maxSamples);
  let length = 0;
  for (const window of windows) {
    const reader = windowReader(source, window);
    for (const region of window.regions) {
      const take = Math.min(region.end - region.start, maxSamples - length);
      if (take <= 0) return out.subarray(0, length);
      out.set(reader.read(region.start - window.start, region.start - window.start + take), length);
      length += take;
    }
  }
  return out.subarray(0, length);
}

/**
 * A time decoded in `window` (seconds from its start) on the original timeline, kept on the
 * speech: a start that Whisper puts in the silence between two regions moves to the next
 * region's start, an end there to the previous region's end. The window's silence is silence
 * in the original too, so nothing said can be stamped there.
 */
export function originalTime(window: SpeechWindow, seconds: number, sampleRate: number, edge: 'start' | 'end'): number {
  const time = window.start / sampleRate + seconds;
  const regions = window.regions;
  for (const [index, region] of regions.entries()) {
    const regionStart = region.start / sampleRate;
    const regionEnd = region.end / sampleRate;
    if (time < regionStart) return roundMs(edge === 'start' || index === 0 ? regionStart : regions[index - 1]!.end / sampleRate);
    if (time <= regionEnd) return roundMs(time);
  }
  return roundMs(regions.at(-1)!.end / sampleRate);
}

function roundMs(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
