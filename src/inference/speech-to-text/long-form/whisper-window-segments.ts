/**
 * Cuts one window's decoded tokens into segments at its timestamp tokens, and says how far to
 * seek, as openai/whisper's transcribe() does:
 * - a pair of consecutive timestamps closes one segment and opens the next;
 * - after the last closed segment, text without a closing stamp is dropped and the next window
 *   starts at that segment's end, so a sentence cut by the window edge is decoded again whole;
 * - a window that ends on a single timestamp, or has no pair at all, was decoded to its end:
 *   seek by the whole window.
 */
import { INPUT_STRIDE, TIME_PRECISION } from '../decoding/whisper-special-tokens.js';

interface WindowSegment {
  /** Seconds from the start of the window. */
  start: number;
  end: number;
  /** The segment's tokens, its timestamps included (they become the next window's prompt). */
  tokens: number[];
}

interface WindowSplit {
  segments: WindowSegment[];
  /** Mel frames to advance the window by (> 0 unless the window is empty). */
  seekFrames: number;
}

/**
 * `tokens`: what was sampled after the start tokens, without the final `eot`.
 * `windowFrames`: mel frames of real audio in this window (≤ 3000; the rest is padding).
 */
export function splitWindow(tokens: readonly number[], timestampBegin: number, windowFrames: number): WindowSplit {
  const isTimestamp = tokens.map((token) => token >= timestampBegin);
  const singleTimestampEnding = tokens.length >= 2 && !isTimestamp[tokens.length - 2] && isTimestamp[tokens.length - 1]!;
  const cuts: number[] = [];
  for (let index = 1; index < tokens.length; index++) if (isTimestamp[index - 1] && isTimestamp[index]) cuts.push(index);
  const position = (token: number) => token - timestampBegin;

  if (cuts.length > 0) {
    if (singleTimestampEnding) cuts.push(tokens.length);
    const segments: WindowSegment[] = [];
    let from = 0;
    for (const to of cuts) {
      const slice = tokens.slice(from, to);
      segments.push({ start: position(slice[0]!) * TIME_PRECISION, end: position(slice[slice.length - 1]!) * TIME_PRECISION, tokens: slice });
      from = to;
    }
    const seekFrames = singleTimestampEnding ? windowFrames : position(tokens[from - 1]!) * INPUT_STRIDE;
    // A window whose only pair sits at 0.00 would not move; take all of it instead of looping.
    return { segments, seekFrames: seekFrames > 0 ? Math.min(seekFrames, windowFrames) : windowFrames };
  }

  // No closed segment: one segment over the whole window, ending at its last stamp when there is one.
  let end = windowFrames / 100;
  const stamps = tokens.filter((_token, index) => isTimestamp[index]);
  const lastStamp = stamps[stamps.length - 1];
  if (lastStamp !== undefined && lastStamp !== timestampBegin) end = position(lastStamp) * TIME_PRECISION;
  const segments = tokens.length > 0 ? [{ start: 0, end, tokens: [...tokens] }] : [];
  return { segments, seekFrames: windowFrames };
}
