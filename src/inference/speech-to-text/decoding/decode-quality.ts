/**
 * The checks openai/whisper's transcribe() makes on each decoded window (whisper/transcribe.py):
 * a window whose text is too repetitive (gzip compression ratio) or too unlikely (average log
 * probability) is decoded again at a higher temperature, and a window the model thinks holds
 * no speech, and whose text is unlikely too, is skipped.
 */
import { deflateSync } from 'node:zlib';

export interface DecodeThresholds {
  /** Above this gzip ratio the text is a repetition loop (openai: 2.4). */
  compressionRatio: number;
  /** Below this average log probability per token the decode failed (openai: -1). */
  logProb: number;
  /** Above this `<|nospeech|>` probability the window may be silence (openai: 0.6). */
  noSpeech: number;
}

export const DEFAULT_THRESHOLDS: DecodeThresholds = { compressionRatio: 2.4, logProb: -1, noSpeech: 0.6 };

/** Temperatures tried in turn until a decode passes (openai: 0, 0.2, …, 1.0). */
export const FALLBACK_TEMPERATURES: readonly number[] = [0, 0.2, 0.4, 0.6, 0.8, 1];

interface WindowDecodeStats {
  text: string;
  avgLogProb: number;
  noSpeechProb: number;
}

/** UTF-8 bytes over zlib-compressed bytes (openai: `len(b) / len(zlib.compress(b))`). */
export function compressionRatio(text: string): number {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length === 0) return 0;
  return bytes.length / deflateSync(bytes).length;
}

/** Decode again at the next temperature? Not for a window that is probably silence (it is skipped instead). */
export function needsFallback(stats: WindowDecodeStats, thresholds: DecodeThresholds = DEFAULT_THRESHOLDS): boolean {
  const failed = compressionRatio(stats.text) > thresholds.compressionRatio || stats.avgLogProb < thresholds.logProb;
  return failed && !isNoSpeech(stats, thresholds);
}

/** Drop the window as silence: the model says no speech and its text is unlikely. */
export function isNoSpeech(stats: Omit<WindowDecodeStats, 'text'>, thresholds: DecodeThresholds = DEFAULT_THRESHOLDS): boolean {
  return stats.noSpeechProb > thresholds.noSpeech && stats.avgLogProb < thresholds.logProb;
}

/** A decode that failed the checks at some temperature, kept in case none passes. */
export interface FailedDecode<T> {
  result: T & { avgLogProb: number };
  text: string;
}

/**
 * When no temperature gives a decode that passes, the most likely of those that are not
 * repetition loops (or of all, if every one is) is kept, as faster-whisper does; openai keeps
 * the last, a sample at temperature 1 that is often noise.
 */
export function bestFailedDecode<T>(failed: readonly FailedDecode<T>[], thresholds: DecodeThresholds = DEFAULT_THRESHOLDS): FailedDecode<T> {
  const loops = failed.map((entry) => compressionRatio(entry.text) > thresholds.compressionRatio);
  const candidates = loops.some((loop) => !loop) ? failed.filter((_, index) => !loops[index]) : failed;
  return candidates.reduce((a, b) => (b.result.avgLogProb > a.result.avgLogProb ? b : a));
}
