/**
 * Word timestamps from cross-attention, the way openai/whisper (whisper/timing.py) and
 * faster-whisper find them: the decoder reads a window's text once more (no cache, no prompt),
 * the attention of its alignment heads over the audio frames is normalised, median-filtered and
 * averaged into a token × frame matrix, and dynamic time warping finds the monotonic path
 * through it; a word starts where the path first reaches its first token. Then the same
 * clean-ups: punctuation joins its word, over-long words at sentence and segment boundaries are
 * cut to twice the median word length, and segment bounds follow their words.
 *
 * Pure functions over plain arrays: the decoder pass lives in whisper-window-decoder.ts.
 */

/** Alignment time steps per second (the encoder's 50 frames per second). */
const ALIGNMENT_STEPS_PER_SECOND = 50;

/** openai's defaults (transcribe.py). */
const PREPEND_PUNCTUATIONS = '"\'“¿([{-';
const APPEND_PUNCTUATIONS = '"\'.。,，!！?？:：”)]}、';
const SENTENCE_END_MARKS = '.。!！?？';
/** Python's string.punctuation: a subword of only these is a word of its own. */
const ASCII_PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
/** Languages written without spaces: words are split at whole characters instead. */
const UNSPACED_LANGUAGES = new Set(['zh', 'ja', 'th', 'lo', 'my', 'yue']);

export interface WordTiming {
  /** As decoded, with its leading space. */
  word: string;
  tokens: number[];
  /** Seconds from the start of the window. */
  start: number;
  end: number;
}

/** The cross-attention of one alignment head: `tokens` rows of `frames` weights (softmax over all frames). */
export interface HeadAttention {
  weights: Float32Array;
  tokens: number;
  frames: number;
}

/**
 * The token × step matrix DTW runs on, over the first `steps` encoder frames (the real audio
 * of the window): each head's rows renormalised over those steps (the softmax openai takes of
 * the truncated scores), standardised per step across tokens, median-filtered along time, and
 * averaged over heads. Rows are all the decoder's input tokens.
 */
export function alignmentMatrix(heads: readonly HeadAttention[], steps: number, medianWidth = 7): { matrix: Float32Array; rows: number; cols: number } {
  const rows = heads[0]!.tokens;
  const cols = Math.min(steps, heads[0]!.frames);
  const matrix = new Float32Array(rows * cols);
  const head = new Float64Array(rows * cols);
  for (const { weights, frames } of heads) {
    for (let row = 0; row < rows; row++) {
      let sum = 0;
      for (let col = 0; col < cols; col++) sum += weights[row * frames + col]!;
      const scale = sum > 0 ? 1 / sum : 0;
      for (let col = 0; col < cols; col++) head[row * cols + col] = weights[row * frames + col]! * scale;
    }
    for (let col = 0; col < cols; col++) {
      let mean = 0;
      for (let row = 0; row < rows; row++) mean += head[row * cols + col]!;
      mean /= rows;
      let variance = 0;
      for (let row = 0; row < rows; row++) variance += (head[row * cols + col]! - mean) ** 2;
      const std = Math.sqrt(variance / rows);
      // openai divides by a zero std too (NaN); a constant column carries no timing either way.
      for (let row = 0; row < rows; row++) head[row * cols + col] = std > 0 ? (head[row * cols + col]! - mean) / std : 0;
    }
    for (let row = 0; row < rows; row++) {
      const filtered = medianFilter(head.subarray(row * cols, (row + 1) * cols), medianWidth);
      for (let col = 0; col < cols; col++) matrix[row * cols + col]! += filtered[col]! / heads.length;
    }
  }
  return { matrix, rows, cols };
}

/** Median of each `width`-wide window, the edges reflected (torch's "reflect" pad); unchanged if too short. */
export function medianFilter(values: ArrayLike<number>, width: number): Float64Array {
  const pad = Math.floor(width / 2);
  const length = values.length;
  const out = Float64Array.from(values as ArrayLike<number>);
  if (length <= pad || width <= 1) return out;
  const padded = new Float64Array(length + 2 * pad);
  for (let index = 0; index < padded.length; index++) {
    const source = index - pad;
    padded[index] = out[source < 0 ? -source : source >= length ? 2 * (length - 1) - source : source]!;
  }
  const window = new Float64Array(width);
  for (let center = 0; center < length; center++) {
    // Insertion sort of the window: for 7 values far cheaper than a TypedArray.sort call.
    for (let offset = 0; offset < width; offset++) {
      const value = padded[center + offset]!;
      let index = offset;
      while (index > 0 && window[index - 1]! > value) {
        window[index] = window[index - 1]!;
        index--;
      }
      window[index] = value;
    }
    out[center] = window[pad]!;
  }
  return out;
}

/**
 * The cheapest monotonic path through `cost` (rows × cols) from its first cell to its last,
 * stepping diagonally, down or right; ties prefer right, as openai's dtw_cpu.
 */
export function dtw(cost: ArrayLike<number>, rows: number, cols: number): { rowIndices: number[]; colIndices: number[] } {
  const width = cols + 1;
  const total = new Float64Array((rows + 1) * width).fill(Infinity);
  const trace = new Int8Array((rows + 1) * width).fill(-1);
  total[0] = 0;
  for (let j = 1; j <= cols; j++) {
    for (let i = 1; i <= rows; i++) {
      const c0 = total[(i - 1) * width + j - 1]!;
      const c1 = total[(i - 1) * width + j]!;
      const c2 = total[i * width + j - 1]!;
      let best: number;
      let step: number;
      if (c0 < c1 && c0 < c2) [best, step] = [c0, 0];
      else if (c1 < c0 && c1 < c2) [best, step] = [c1, 1];
      else [best, step] = [c2, 2];
      total[i * width + j] = cost[(i - 1) * cols + j - 1]! + best;
      trace[i * width + j] = step;
    }
  }
  for (let j = 0; j <= cols; j++) trace[j] = 2;
  for (let i = 0; i <= rows; i++) trace[i * width] = 1;
  const rowIndices: number[] = [];
  const colIndices: number[] = [];
  let i = rows;
  let j = cols;
  while (i > 0 || j > 0) {
    rowIndices.push(i - 1);
    colIndices.push(j - 1);
    const step = trace[i * width + j];
    if (step === 0) {
      i--;
      j--;
    } else if (step === 1) i--;
    else j--;
  }
  return { rowIndices: rowIndices.reverse(), colIndices: colIndices.reverse() };
}

/**
 * Text tokens grouped into words: pieces that decode to whole characters (a multi-byte
 * character may span tokens), joined until a piece starts with a space or is punctuation.
 * `decode` must keep spaces and special tokens' absence as they are (no clean-up).
 */
export function splitWords(tokens: readonly number[], decode: (ids: number[]) => string, language = 'en'): { word: string; tokens: number[] }[] {
  const pieces = splitOnCharacters(tokens, decode);
  if (UNSPACED_LANGUAGES.has(language)) return pieces;
  const words: { word: string; tokens: number[] }[] = [];
  for (const piece of pieces) {
    const trimmed = piece.word.trim();
    const punctuation = trimmed !== '' && [...trimmed].every((char) => ASCII_PUNCTUATION.includes(char));
    if (words.length === 0 || piece.word.startsWith(' ') || punctuation || trimmed === '') words.push({ word: piece.word, tokens: [...piece.tokens] });
    else {
      const last = words[words.length - 1]!;
      last.word += piece.word;
      last.tokens.push(...piece.tokens);
    }
  }
  return words;
}

function splitOnCharacters(tokens: readonly number[], decode: (ids: number[]) => string): { word: string; tokens: number[] }[] {
  const full = decode([...tokens]);
  const pieces: { word: string; tokens: number[] }[] = [];
  let current: number[] = [];
  let offset = 0;
  for (const token of tokens) {
    current.push(token);
    const decoded = decode(current);
    const replacement = decoded.indexOf('\ufffd');
    // An incomplete character decodes to U+FFFD: wait for the token that completes it,
    // unless the text really holds U+FFFD there.
    if (replacement === -1 || full[offset + replacement] === '\ufffd') {
      pieces.push({ word: decoded, tokens: current });
      offset += decoded.length;
      current = [];
    }
  }
  return pieces;
}

/**
 * Start and end of each word from the DTW path over the matrix rows of the tokens that predict
 * them: row 0 is the token before the first text token, so a window's text of n tokens uses n + 1
 * rows (the last predicts end-of-text).
 */
export function timeWords(
  words: readonly { word: string; tokens: number[] }[],
  path: { rowIndices: readonly number[]; colIndices: readonly number[] },
): WordTiming[] {
  // The time of the first step of each row.
  const jumpTimes: number[] = [];
  for (let index = 0; index < path.rowIndices.length; index++) {
    if (index === 0 || path.rowIndices[index] !== path.rowIndices[index - 1]) jumpTimes.push(path.colIndices[index]! / ALIGNMENT_STEPS_PER_SECOND);
  }
  const timings: WordTiming[] = [];
  let boundary = 0;
  for (const word of words) {
    const next = boundary + word.tokens.length;
    timings.push({ word: word.word, tokens: word.tokens, start: jumpTimes[boundary] ?? 0, end: jumpTimes[next] ?? jumpTimes[jumpTimes.length - 1] ?? 0 });
    boundary = next;
  }
  return timings;
}

/** Joins opening punctuation to the word after it and closing punctuation to the word before (emptied words stay, with no tokens). */
export function mergePunctuations(alignment: WordTiming[], prepended = PREPEND_PUNCTUATIONS, appended = APPEND_PUNCTUATIONS): void {
  let following = alignment.length - 1;
  for (let index = alignment.length - 2; index >= 0; index--) {
    const previous = alignment[index]!;
    const next = alignment[following]!;
    if (previous.word.startsWith(' ') && previous.word.trim() !== '' && prepended.includes(previous.word.trim())) {
      next.word = previous.word + next.word;
      next.tokens = [...previous.tokens, ...next.tokens];
      previous.word = '';
      previous.tokens = [];
    } else following = index;
  }
  let previousIndex = 0;
  for (let index = 1; index < alignment.length; index++) {
    const previous = alignment[previousIndex]!;
    const next = alignment[index]!;
    if (!previous.word.endsWith(' ') && next.word !== '' && appended.includes(next.word)) {
      previous.word += next.word;
      previous.tokens = [...previous.tokens, ...next.tokens];
      next.word = '';
      next.tokens = [];
    } else previousIndex = index;
  }
}

export interface WindowSegmentForWords {
  /** Seconds from the start of the audio; moved to its words' bounds here. */
  start: number;
  end: number;
  /** Text tokens of the segment (no timestamps). */
  textTokens: readonly number[];
}

interface TimedWord {
  word: string;
  /** Seconds from the start of the audio. */
  start: number;
  end: number;
}

/**
 * openai's add_word_timestamps after the alignment: long words cut at sentence ends, punctuation
 * merged, words dealt out to the window's segments by token count and put on the audio's
 * timeline (`offset`), the first word after a pause and the segment bounds reconciled.
 * Returns each segment's words and the new last speech time; segments' start/end are updated.
 */
/**
 * The entry after the last word, as openai's word timing appends it: its DTW timing ends the last
 * word. It is never a word itself.
 */
export const END_OF_TEXT_WORD = '<|endoftext|>';

export function assignWords(
  alignment: WordTiming[],
  segments: WindowSegmentForWords[],
  offset: number,
  lastSpeechTimestamp: number,
): { words: TimedWord[][]; lastSpeechTimestamp: number } {
  const durations = alignment.map((word) => word.end - word.start).filter((duration) => duration !== 0);
  const medianDuration = Math.min(0.7, durations.length > 0 ? median(durations) : 0);
  const maxDuration = medianDuration * 2;
  if (durations.length > 0) {
    for (let index = 1; index < alignment.length; index++) {
      const word = alignment[index]!;
      if (word.end - word.start <= maxDuration) continue;
      if (SENTENCE_END_MARKS.includes(word.word) && word.word !== '') word.end = word.start + maxDuration;
      else if (alignment[index - 1]!.word !== '' && SENTENCE_END_MARKS.includes(alignment[index - 1]!.word)) word.start = word.end - maxDuration;
    }
  }
  mergePunctuations(alignment);

  const result: TimedWord[][] = [];
  let wordIndex = 0;
  for (const segment of segments) {
    let savedTokens = 0;
    const words: TimedWord[] = [];
    while (wordIndex < alignment.length && savedTokens < segment.textTokens.length) {
      const timing = alignment[wordIndex]!;
      if (timing.word && timing.word !== END_OF_TEXT_WORD)
        words.push({ word: timing.word, start: round2(offset + timing.start), end: round2(offset + timing.end) });
      savedTokens += timing.tokens.length;
      wordIndex++;
    }
    if (words.length > 0) {
      const first = words[0]!;
      const second = words[1];
      const last = words[words.length - 1]!;
      // The first word after a pause tends to swallow the pause: keep it and the next one short.
      if (
        first.end - lastSpeechTimestamp > medianDuration * 4 &&
        (first.end - first.start > maxDuration || (second !== undefined && second.end - first.start > maxDuration * 2))
      ) {
        if (second !== undefined && second.end - second.start > maxDuration) {
          const boundary = Math.max(second.end / 2, second.end - maxDuration);
          first.end = second.start = boundary;
        }
        first.start = Math.max(0, first.end - maxDuration);
      }
      // Prefer the segment's own start (end) when the first (last) word is too long.
      if (segment.start < first.end && segment.start - 0.5 > first.start) first.start = Math.max(0, Math.min(first.end - medianDuration, segment.start));
      else segment.start = first.start;
      if (segment.end > last.start && segment.end + 0.5 < last.end) last.end = Math.max(last.start + medianDuration, segment.end);
      else segment.end = last.end;
      lastSpeechTimestamp = segment.end;
    }
    result.push(words);
  }
  return { words: result, lastSpeechTimestamp };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function round2(seconds: number): number {
  return Math.round(seconds * 100) / 100;
}
