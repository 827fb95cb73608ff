/**
 * Decodes VAD speech windows (speech-windows.ts) one after the other, each on its own: its own
 * prompt (none, unless `conditionOnPreviousWindow`), no seek from one window into the next, and
 * every segment and word put back on the original timeline by the window's start.
 *
 * The batching seam: the windows are independent and each is at most 30 s, so this loop is the
 * one place a batched window decoder (several windows through the encoder and decoder at once)
 * replaces. Whatever replaces it must keep what the loop gives: segments reported through
 * `onSegments` in window order as soon as every window before them is final, the abort signal
 * checked between and inside windows, and at most a few windows' audio read at a time. A window's
 * first decode may stop before its end (its last segment closed early, or the model deemed the
 * rest silence): decodeLongForm then goes on with the rest of that window alone, so a batched
 * decoder must give such a window its follow-up decodes too (WhisperX drops that tail).
 */
import type { PcmReader } from '../../audio/pcm16-buffer.js';
import { decodeLongForm, type DecodedSegment, type LongFormModel, type LongFormOptions } from './long-form-decoder.js';
import { originalTime, windowReader, type SpeechWindow } from './speech-windows.js';

export interface WindowsDecodeOptions extends Omit<LongFormOptions, 'initialPrompt'> {
  /**
   * Prompt each window with the text of the window before it (default false: windows stay
   * independent, which batching needs; docs/benchmarks.md, "Speech to text", has the measurement).
   */
  conditionOnPreviousWindow?: boolean;
}

/** `source`: the original audio (16 kHz); `windows`: ascending, from mergeRegions. */
export async function decodeWindows(
  source: PcmReader,
  windows: readonly SpeechWindow[],
  model: LongFormModel,
  options: WindowsDecodeOptions,
): Promise<DecodedSegment[]> {
  const sampleRate = options.sampleRate ?? 16_000;
  const all: DecodedSegment[] = [];
  let previous: readonly DecodedSegment[] = [];
  for (const window of windows) {
    options.signal.throwIfAborted();
    const toOriginal = (segments: DecodedSegment[]) => segments.map((segment) => onOriginalTimeline(segment, window, sampleRate));
    const segments = await decodeLongForm(windowReader(source, window), model, {
      ...options,
      initialPrompt: options.conditionOnPreviousWindow ? previous.flatMap((segment) => segment.details.tokens) : undefined,
      onSegments: options.onSegments && ((fresh) => options.onSegments!(toOriginal(fresh))),
    });
    all.push(...toOriginal(segments));
    previous = segments;
  }
  return all;
}

/** A segment decoded in `window`, its words too, with times on the original audio's timeline. */
export function onOriginalTimeline(segment: DecodedSegment, window: SpeechWindow, sampleRate: number): DecodedSegment {
  const start = originalTime(window, segment.start, sampleRate, 'start');
  const moved: DecodedSegment = { ...segment, start, end: Math.max(start, originalTime(window, segment.end, sampleRate, 'end')) };
  if (segment.words) {
    moved.words = segment.words.map((word) => {
      const wordStart = originalTime(window, word.start, sampleRate, 'start');
      return { ...word, start: wordStart, end: Math.max(wordStart, originalTime(window, word.end, sampleRate, 'end')) };
    });
  }
  return moved;
}
