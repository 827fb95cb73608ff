/**
 * openai/whisper's sequential long-form transcription (whisper/transcribe.py), over 16-kHz PCM:
 * decode a 30-s window with timestamps, keep its closed segments, seek to the end of the last
 * one (or past the window), and decode the next window with the text so far as its prompt.
 * A window whose text is repetitive or unlikely is decoded again at a higher temperature, and
 * one the model deems silent is skipped. Audio in, timed segments out: whatever runs before it
 * (voice activity detection) only has to map the timestamps back.
 */
import type { Tensor } from '@huggingface/transformers';
import type { SegmentDetails, TranscriptWord } from '../../types.js';
import { floatReader, type PcmReader } from '../../../audio/pcm16-buffer.js';
import {
  bestFailedDecode,
  compressionRatio,
  DEFAULT_THRESHOLDS,
  FALLBACK_TEMPERATURES,
  isNoSpeech,
  needsFallback,
  type DecodeThresholds,
  type FailedDecode,
} from '../decoding/decode-quality.js';
import { FRAMES_PER_SECOND, WINDOW_FRAMES, type WhisperSpecialTokens } from '../decoding/whisper-special-tokens.js';
import { seededRandom } from '../decoding/whisper-token-choice.js';
import { windowPrompt } from '../decoding/whisper-prompt.js';
import { splitWindow } from './whisper-window-segments.js';
import type { SearchOptions } from '../decoding/whisper-search-decode.js';
import type { WhisperWindowDecoder } from '../decoder/whisper-window-decoder.js';
import type { WindowDecodeResult } from '../decoding/window-decode-request.js';
import { alignmentMatrix, assignWords, dtw, END_OF_TEXT_WORD, splitWords, timeWords, type WindowSegmentForWords } from '../decoding/word-timing.js';

export interface DecodedSegment {
  /** Seconds from the start of the audio. */
  start: number;
  end: number;
  /** As decoded: usually with its leading space. */
  text: string;
  details: SegmentDetails;
  /** With `words`: the segment's words (seconds from the start of the audio). */
  words?: TranscriptWord[];
  /** With `logprobs`: each of `details.tokens`' log probability. */
  tokenLogprobs?: number[];
}

/** What word timestamps need of the model (word-timing.ts). */
interface WordAligner {
  decoder: Pick<WhisperWindowDecoder, 'crossAttention'>;
  /** [layer, head] pairs whose cross-attention follows the speech (generation_config alignment_heads). */
  alignmentHeads: readonly (readonly [number, number])[];
  medianFilterWidth: number;
  /** Text of tokens exactly as decoded (spaces kept, no clean-up). */
  decodeRaw(ids: number[]): string;
}

export interface LongFormModel {
  /** Log-mel input features [1, mel, 3000] of up to 30 s of PCM (zero-padded). */
  features(pcm: Float32Array): Promise<Tensor>;
  decoder: Pick<WhisperWindowDecoder, 'encode' | 'decode'>;
  tokens: WhisperSpecialTokens;
  /** Text of text tokens (no timestamps or markers among them). */
  detokenize(ids: number[]): string;
  /** Absent when the model's decoder does not output cross-attention. */
  aligner?: WordAligner;
}

export interface LongFormOptions {
  startTokens: readonly number[];
  signal: AbortSignal;
  sampleRate?: number;
  /** Tokens per window at most (openai: 224). */
  maxTokensPerWindow?: number;
  /** Prompt each window with the text before it (openai's condition_on_previous_text, default true). */
  conditionOnPreviousText?: boolean;
  /**
   * Tokens of the text before the audio (openai's initial_prompt): the first window's previous
   * text. decode-windows.ts gives each VAD window the user's prompt and, when asked, the window before's text.
   */
  initialPrompt?: readonly number[];
  /** Tokens of faster-whisper's hotwords, put before every window's previous text (whisper-prompt.ts). */
  hotwords?: readonly number[];
  /** Keep each segment's token log probabilities (`tokenLogprobs`). */
  logprobs?: boolean;
  temperatures?: readonly number[];
  thresholds?: DecodeThresholds;
  /** Beam search at temperature 0, best-of sampling above it (whisper-search-decode.ts); none: one row. */
  search?: SearchOptions;
  maxInitialTimestampIndex?: number;
  /** Called with each window's new segments as soon as they are final. */
  onSegments?: (segments: DecodedSegment[]) => void;
  /** Sampling at fallback temperatures: a fixed-seed generator by default, so a file always gives the same text. */
  random?: () => number;
  /** Word timestamps (needs `model.aligner`); windows then also seek to the last word's end, as openai. */
  words?: boolean;
  /** The spoken language's code, for splitting words (languages without spaces split at characters). */
  language?: string;
}

/** Whisper's decoder positions (n_text_ctx). */
const DECODER_POSITIONS = 448;

/**
 * Tokens a window may sample after its `<|startofprev|>`, prompt and start tokens: a full prompt
 * of 224, 3 start tokens and 224 sampled would pass the decoder's last position (openai stops there too).
 */
function roomAfterPrompt(prompt: readonly number[], startTokens: readonly number[]): number {
  return DECODER_POSITIONS - (prompt.length > 0 ? prompt.length + 1 : 0) - startTokens.length;
}

/** Past this temperature the prompt is dropped: the text so far led the model astray (openai: 0.5). */
const PROMPT_RESET_TEMPERATURE = 0.5;

/** `audio`: 16-kHz PCM, whole or as a reader (a 16-bit hour is read one window at a time). */
export async function decodeLongForm(audio: Float32Array | PcmReader, model: LongFormModel, options: LongFormOptions): Promise<DecodedSegment[]> {
  const source = audio instanceof Float32Array ? floatReader(audio) : audio;
  const sampleRate = options.sampleRate ?? 16_000;
  const samplesPerFrame = sampleRate / FRAMES_PER_SECOND;
  const totalFrames = Math.floor(source.length / samplesPerFrame);
  const { tokens: special, decoder } = model;
  const all: DecodedSegment[] = [];
  /** Every kept segment's tokens, for the prompt; the prompt starts at `promptStart`. */
  const history: number[] = [...(options.initialPrompt ?? [])];
  let promptStart = 0;
  let seek = 0;
  let lastSpeechTimestamp = 0;
  const aligner = options.words ? model.aligner : undefined;
  if (options.words && !aligner) throw new Error('word timestamps need a decoder with cross-attention outputs');
  const random = options.random ?? seededRandom(0x5eed);
  while (seek < totalFrames) {
    options.signal.throwIfAborted();
    const windowFrames = Math.min(WINDOW_FRAMES, totalFrames - seek);
    const offset = seek / FRAMES_PER_SECOND;
    const pcm = source.read(seek * samplesPerFrame, (seek + windowFrames) * samplesPerFrame);
    const audioFeatures = await decoder.encode(await model.features(pcm), options.signal);
    options.signal.throwIfAborted();
    const prompt = windowPrompt(options.hotwords ?? [], history.slice(promptStart));
    const { result, temperature, text: windowText } = await decodeWithFallback(model, { ...options, random }, { audioFeatures, prompt });
    if (isNoSpeech(result, options.thresholds ?? DEFAULT_THRESHOLDS)) {
      seek += windowFrames;
      continue;
    }
    const split = splitWindow(result.tokens, special.timestampBegin, windowFrames);
    const window = { seek, temperature, avgLogprob: result.avgLogProb, compressionRatio: compressionRatio(windowText), noSpeechProb: result.noSpeechProb };
    const fresh: DecodedSegment[] = [];
    // The last window is padded to 30 s; a stamp in the padding is clamped to the audio's end.
    const windowEnd = windowFrames / FRAMES_PER_SECOND;
    let tokenOffset = 0;
    for (const segment of split.segments) {
      // splitWindow cuts the window's tokens into consecutive slices.
      const from = tokenOffset;
      tokenOffset += segment.tokens.length;
      const text = model.detokenize(segment.tokens.filter((id) => id < special.eot));
      const start = Math.min(segment.start, windowEnd);
      const end = Math.min(segment.end, windowEnd);
      // openai clears instantaneous or empty segments, from the output and from the prompt.
      if (start === end || text.trim() === '') continue;
      const kept: DecodedSegment = { start: round(offset + start), end: round(offset + end), text, details: { ...window, tokens: segment.tokens } };
      if (options.logprobs) kept.tokenLogprobs = tokenLogProbsOf(result).slice(from, tokenOffset);
      fresh.push(kept);
      history.push(...segment.tokens);
    }
    // As openai: without conditioning only the first window sees the initial prompt.
    if (options.conditionOnPreviousText === false || temperature > PROMPT_RESET_TEMPERATURE) promptStart = history.length;
    const timing =
      aligner && fresh.length > 0 ? await addWords(fresh, aligner, { audioFeatures, windowFrames, offset, lastSpeechTimestamp, options, special }) : undefined;
    if (timing) lastSpeechTimestamp = timing.lastSpeechTimestamp;
    // With word timestamps openai seeks to the last word's end instead of the last segment's,
    // unless the window was decoded to its end.
    const singleTimestampEnding =
      result.tokens.length >= 2 && result.tokens.at(-2)! < special.timestampBegin && result.tokens.at(-1)! >= special.timestampBegin;
    const lastWordEnd = timing?.lastWordEnd;
    if (lastWordEnd !== undefined && !singleTimestampEnding && lastWordEnd > offset) seek = Math.round(lastWordEnd * FRAMES_PER_SECOND);
    else seek += split.seekFrames;
    all.push(...fresh);
    if (fresh.length > 0) options.onSegments?.(fresh);
  }
  return all;
}

/**
 * Decodes at each temperature in turn until the result passes; when none does, bestFailedDecode
 * picks. The temperature reported is the last one tried, so a failed window still resets the prompt.
 */
async function decodeWithFallback(
  model: LongFormModel,
  options: LongFormOptions,
  window: { audioFeatures: Tensor; prompt: number[] },
): Promise<{ result: WindowDecodeResult; temperature: number; text: string }> {
  const temperatures = options.temperatures ?? FALLBACK_TEMPERATURES;
  const thresholds = options.thresholds ?? DEFAULT_THRESHOLDS;
  const failed: FailedDecode<WindowDecodeResult>[] = [];
  let temperature = temperatures[0] ?? 0;
  for (temperature of temperatures) {
    const result = await model.decoder.decode({
      ...window,
      startTokens: options.startTokens,
      temperature,
      maxTokens: Math.min(options.maxTokensPerWindow ?? 224, roomAfterPrompt(window.prompt, options.startTokens)),
      maxInitialTimestampIndex: options.maxInitialTimestampIndex ?? 50,
      signal: options.signal,
      random: options.random,
      search: options.search,
    });
    const text = model.detokenize(result.tokens.filter((id) => id < model.tokens.eot));
    if (!needsFallback({ text, avgLogProb: result.avgLogProb, noSpeechProb: result.noSpeechProb }, thresholds)) return { result, temperature, text };
    failed.push({ result, text });
  }
  const best = bestFailedDecode(failed, thresholds);
  return { result: best.result, temperature, text: best.text };
}

/**
 * Aligns one window's kept segments to its audio (one decoder pass over their text, without
 * prompt or timestamps, as openai's find_alignment) and gives each its words, moving segment
 * bounds to them. Returns the last word's end and the new last speech time.
 */
async function addWords(
  segments: DecodedSegment[],
  aligner: WordAligner,
  window: { audioFeatures: Tensor; windowFrames: number; offset: number; lastSpeechTimestamp: number; options: LongFormOptions; special: WhisperSpecialTokens },
): Promise<{ lastWordEnd: number | undefined; lastSpeechTimestamp: number }> {
  const { special, options } = window;
  const perSegment: WindowSegmentForWords[] = segments.map((segment) => ({
    start: segment.start,
    end: segment.end,
    textTokens: segment.details.tokens.filter((id) => id < special.eot),
  }));
  const textTokens = perSegment.flatMap((segment) => segment.textTokens);
  if (textTokens.length === 0) return { lastWordEnd: undefined, lastSpeechTimestamp: window.lastSpeechTimestamp };
  const startTokens = [...options.startTokens, special.noTimestamps];
  const heads = await aligner.decoder.crossAttention(window.audioFeatures, [...startTokens, ...textTokens, special.eot], aligner.alignmentHeads);
  options.signal.throwIfAborted();
  const { matrix, rows, cols } = alignmentMatrix(heads, Math.floor(window.windowFrames / 2), aligner.medianFilterWidth);
  // DTW runs over the rows from <|notimestamps|> (which predicts the first text token) to the
  // last text token (which predicts end-of-text), as openai's matrix[len(sot_sequence):-1].
  const first = options.startTokens.length;
  const pathRows = rows - first - 1;
  const cost = new Float32Array(pathRows * cols);
  for (let index = 0; index < cost.length; index++) cost[index] = -matrix[first * cols + index]!;
  const path = dtw(cost, pathRows, cols);
  const words = [...splitWords(textTokens, aligner.decodeRaw, options.language), { word: END_OF_TEXT_WORD, tokens: [special.eot] }];
  const timed = assignWords(timeWords(words, path), perSegment, window.offset, window.lastSpeechTimestamp);
  segments.forEach((segment, index) => {
    segment.start = perSegment[index]!.start;
    segment.end = perSegment[index]!.end;
    segment.words = timed.words[index]!;
  });
  const lastWord = timed.words.flat().at(-1);
  return { lastWordEnd: lastWord?.end, lastSpeechTimestamp: timed.lastSpeechTimestamp };
}

function tokenLogProbsOf(result: WindowDecodeResult): number[] {
  if (!result.tokenLogProbs) throw new Error('the window decoder reported no token log probabilities');
  return result.tokenLogProbs;
}

/** The transcript text of segments, as openai joins them. */
export function segmentsText(segments: readonly DecodedSegment[]): string {
  return segments
    .map((segment) => segment.text)
    .join('')
    .trim();
}

function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
