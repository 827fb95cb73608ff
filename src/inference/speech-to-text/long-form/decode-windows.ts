/**
 * Decodes VAD speech windows (speech-windows.ts) one after the other, each on its own: its own
 * prompt (none, unless `conditionOnPreviousWindow`), no seek from one window into the next, and
 * every segment and word put back on the original timeline by the window's start.
 *
 * The windows are independent and each is at most 30 s, so with `batchSize` several are decoded
 * side by side (windows-together.ts), each running exactly the loop it runs alone (decodeWindow:
 * its follow-up decodes too, for a decode that stopped before the window's end or left a region
 * uncovered, which WhisperX drops) while their decoder steps share lockstep batches. Kept from
 * the one-at-a-time loop: segments reported through `onSegments` in window order as soon as every
 * window before them is final, the abort signal checked between and inside windows, and at most
 * `batchSize` windows' audio read at a time. With `onSegments` (a caller that streams) the first
 * window is decoded alone before the rest are batched, so its text is sent first.
 */
import type { PcmReader } from '../../../audio/pcm16-buffer.js';
import { decodeLongForm, type DecodedSegment, type LongFormModel, type LongFormOptions } from './long-form-decoder.js';
import { originalTime, utterancesWithin, windowReader, type SpeechWindow } from '../vad/speech-windows.js';
import type { WhisperWindowDecoder } from '../decoder/whisper-window-decoder.js';
import { decodeWindowsTogether } from './windows-together.js';

export interface WindowsDecodeOptions extends LongFormOptions {
  /**
   * Prompt each window with the text of the window before it (default false: windows stay
   * independent, which batching needs; docs/benchmarks.md, "Speech to text", has the measurement).
   */
  conditionOnPreviousWindow?: boolean;
  /**
   * Windows decoded side by side, their decoder steps batched (whisperBatchSize; default 1, one
   * at a time). Windows prompted by the one before (conditionOnPreviousWindow), or sharing one
   * caller's `random`, are decoded one at a time whatever this says.
   */
  batchSize?: number;
}

/** A model whose decoder can batch (WhisperWindowDecoder) decodes windows side by side. */
export type WindowsModel = LongFormModel & { decoder: LongFormModel['decoder'] & Partial<Pick<WhisperWindowDecoder, 'decodeBatch'>> };

/** `source`: the original audio (16 kHz); `windows`: ascending, from mergeRegions. */
export async function decodeWindows(
  source: PcmReader,
  windows: readonly SpeechWindow[],
  model: WindowsModel,
  options: WindowsDecodeOptions,
): Promise<DecodedSegment[]> {
  const { decodeBatch } = model.decoder;
  const batchSize = Math.min(options.batchSize ?? 1, windows.length);
  // A window prompted by the one before, or one generator drawn from by every window in turn, needs the windows in order.
  if (decodeBatch && batchSize > 1 && !options.conditionOnPreviousWindow && !options.random) {
    const encode = model.decoder.encode.bind(model.decoder);
    const together = (some: readonly SpeechWindow[]) =>
      decodeWindowsTogether(
        some.length,
        { decodeBatch: decodeBatch.bind(model.decoder) },
        async (index, turn) =>
          (
            await decodeWindow(
              source,
              some[index]!,
              { ...model, decoder: { encode, decode: turn.decode } },
              {
                ...options,
                onSegments: options.onSegments && turn.report,
              },
            )
          ).segments,
        { concurrency: Math.min(batchSize, some.length), onSegments: options.onSegments },
      );
    // A caller that streams gets the first window's text once that window alone is decoded: in a
    // batch it would wait for the batch's slowest row and every follow-up decode, often the whole file.
    const first = options.onSegments ? await together(windows.slice(0, 1)) : [];
    const rest = first.length < windows.length ? await together(windows.slice(first.length)) : [];
    return [...first, ...rest].flat();
  }
  const all: DecodedSegment[] = [];
  let previous: readonly DecodedSegment[] = [];
  for (const whole of windows) {
    const decoded = await decodeWindow(source, whole, model, options, previous);
    all.push(...decoded.segments);
    previous = decoded.previous;
  }
  return all;
}

/**
 * One window, and again what its decodes leave uncovered: the rest after the last segment
 * (uncoveredRest) and speech passed over between segments (uncoveredGaps). `previous`: the window
 * before's segments, its prompt with conditionOnPreviousWindow. Returns the segments on the
 * original timeline in time order, and the decode's that ended last (the next window's `previous`).
 * Segments are reported once no pending decode can put anything before them.
 */
async function decodeWindow(
  source: PcmReader,
  whole: SpeechWindow,
  model: LongFormModel,
  options: WindowsDecodeOptions,
  previous: readonly DecodedSegment[] = [],
): Promise<{ segments: DecodedSegment[]; previous: readonly DecodedSegment[] }> {
  const sampleRate = options.sampleRate ?? 16_000;
  const all: DecodedSegment[] = [];
  let reported = 0;
  let lastEnd = Number.NEGATIVE_INFINITY;
  // Every follow-up is a strictly shorter part of the decode it came from; the cap keeps a
  // window's cost within one decode per region, and the first.
  let decodesLeft = whole.regions.length + 1;
  const pending: SpeechWindow[] = [whole];
  while (pending.length > 0 && decodesLeft-- > 0) {
    options.signal.throwIfAborted();
    const current = pending.shift()!;
    const segments = await decodeLongForm(windowReader(source, current), model, {
      ...options,
      // The user's prompt (names, spelling) reaches every window, as WhisperX gives it to every chunk.
      initialPrompt: [...(options.initialPrompt ?? []), ...(options.conditionOnPreviousWindow ? previous.flatMap((segment) => segment.details.tokens) : [])],
      onSegments: undefined,
    });
    const placed = segments.map((segment) => onOriginalTimeline(segment, current, sampleRate));
    all.push(...placed);
    if (placed.length > 0 && placed.at(-1)!.end >= lastEnd) {
      lastEnd = placed.at(-1)!.end;
      previous = segments;
    }
    // A decode's end of text means "nothing more in this window"; speech the VAD found after
    // it, or between its segments, disproves that, so that speech is decoded on its own.
    const rest = uncoveredRest(current, segments.at(-1), sampleRate);
    pending.push(...uncoveredGaps(current, segments, sampleRate), ...(rest ? [rest] : []));
    pending.sort((a, b) => a.start - b.start);
    all.sort((a, b) => a.start - b.start);
    const settled = pending.length > 0 && decodesLeft > 0 ? pending[0]!.start / sampleRate : Number.POSITIVE_INFINITY;
    let ready = reported;
    while (ready < all.length && all[ready]!.start < settled) ready++;
    if (ready > reported) options.onSegments?.(all.slice(reported, ready));
    reported = ready;
  }
  return { segments: all, previous };
}

/**
 * Speech of `window` between its segments that none of them covers, as windows: at least
 * MIN_REST_SECONDS of the VAD's utterances in a gap before the last segment (Whisper can pass over
 * a quiet speaker, or a sentence, and go on after it). Speech after the last segment is
 * uncoveredRest's.
 */
export function uncoveredGaps(window: SpeechWindow, segments: readonly { start: number; end: number }[], sampleRate: number): SpeechWindow[] {
  const at = (seconds: number) => window.start + Math.round(seconds * sampleRate);
  const gaps: SpeechWindow[] = [];
  const minimum = MIN_REST_SECONDS * sampleRate;
  let covered = window.start;
  for (const segment of segments) {
    const [from, to] = [covered, at(segment.start)];
    // Utterances, not regions: a region also holds the pauses (< 2 s) between them. The rest of
    // one a segment ended in, or the lead of one the next began in, is pad and stamp slack when
    // short, as in uncoveredRest.
    const speech = window.regions
      .flatMap((region) => utterancesWithin(region, from, to))
      .filter((piece) => piece.end - piece.start >= (piece.start === from || piece.end === to ? minimum : 1));
    if (speech.reduce((sum, piece) => sum + piece.end - piece.start, 0) >= minimum) {
      const [start, end] = [speech[0]!.start, speech.at(-1)!.end];
      const regions = window.regions
        .map((region) => ({ ...region, start: Math.max(region.start, start), end: Math.min(region.end, end) }))
        .filter((region) => region.end > region.start);
      gaps.push({ start, end, regions });
    }
    covered = Math.max(covered, at(segment.end));
  }
  return gaps;
}

/** Less than this left of a region after its last segment is its trailing pad (0.4 s) and Whisper's early end stamps, not words. */
const MIN_REST_SECONDS = 1.5;

/**
 * What of `window` its decode did not reach, when that is speech: the window from the last
 * segment's end (seconds from the window's start), or from the start of the region that end
 * falls in when the segment began in an earlier region (Whisper stretches a sentence's end over
 * the pause after it, into the next speaker's words); undefined when no region is left untouched
 * and less than MIN_REST_SECONDS is left of the one the end falls in. Without segments, the
 * window from its second region. Every rest starts later than its window, so the loop ends.
 */
export function uncoveredRest(window: SpeechWindow, last: { start: number; end: number } | undefined, sampleRate: number): SpeechWindow | undefined {
  const { regions } = window;
  if (!last) return regions.length > 1 ? { start: regions[1]!.start, end: window.end, regions: regions.slice(1) } : undefined;
  const until = window.start + Math.round(last.end * sampleRate);
  const began = window.start + Math.round(last.start * sampleRate);
  let index = regions.findIndex((region) => region.end > until);
  // The end fell in a region with little left of it: only later regions are left.
  if (index >= 0 && regions[index]!.start <= until && regions[index]!.end - until < MIN_REST_SECONDS * sampleRate) index++;
  if (index < 0 || index >= regions.length) return undefined;
  const region = regions[index]!;
  // Began in an earlier region, not merely in the pause before this one (a start stamp a step early):
  // decoding this region again from its start would give its sentence twice.
  const beganEarlier = index > 0 && began < regions[index - 1]!.end;
  const from = region.start > until || beganEarlier ? region.start : until;
  return { start: from, end: window.end, regions: [{ ...region, start: from }, ...regions.slice(index + 1)] };
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
