/**
 * openai/whisper's sequential long-form transcription (whisper/transcribe.py), over 16-kHz PCM:
 * decode a 30-s window with timestamps, keep its closed segments, seek to the end of the last
 * one (or past the window), and decode the next window with the text so far as its prompt.
 * A window whose text is repetitive or unlikely is decoded again at a higher temperature, and
 * one the model deems silent is skipped. Audio in, timed segments out: whatever runs before it
 * (voice activity detection) only has to map the timestamps back.
 */
import type { Tensor } from '@huggingface/transformers';
import { floatReader, type PcmReader } from '../../audio/pcm16-buffer.js';
import { compressionRatio, DEFAULT_THRESHOLDS, FALLBACK_TEMPERATURES, isNoSpeech, needsFallback, type DecodeThresholds } from './decode-quality.js';
import { FRAMES_PER_SECOND, WINDOW_FRAMES, type WhisperSpecialTokens } from './whisper-special-tokens.js';
import { splitWindow } from './whisper-window-segments.js';
import type { WhisperWindowDecoder, WindowDecodeResult } from './whisper-window-decoder.js';

export interface DecodedSegment {
  /** Seconds from the start of the audio. */
  start: number;
  end: number;
  /** As decoded: usually with its leading space. */
  text: string;
}

export interface LongFormModel {
  /** Log-mel input features [1, mel, 3000] of up to 30 s of PCM (zero-padded). */
  features(pcm: Float32Array): Promise<Tensor>;
  decoder: Pick<WhisperWindowDecoder, 'encode' | 'decode'>;
  tokens: WhisperSpecialTokens;
  /** Text of text tokens (no timestamps or markers among them). */
  detokenize(ids: number[]): string;
}

export interface LongFormOptions {
  startTokens: readonly number[];
  signal: AbortSignal;
  sampleRate?: number;
  /** Tokens per window at most (openai: 224). */
  maxTokensPerWindow?: number;
  /** Prompt each window with the text before it (openai's condition_on_previous_text, default true). */
  conditionOnPreviousText?: boolean;
  temperatures?: readonly number[];
  thresholds?: DecodeThresholds;
  maxInitialTimestampIndex?: number;
  /** Called with each window's new segments as soon as they are final. */
  onSegments?: (segments: DecodedSegment[]) => void;
  /** Sampling at fallback temperatures: a fixed-seed generator by default, so a file always gives the same text. */
  random?: () => number;
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
  const history: number[] = [];
  let promptStart = 0;
  let seek = 0;
  const random = options.random ?? seededRandom(0x5eed);
  while (seek < totalFrames) {
    options.signal.throwIfAborted();
    const windowFrames = Math.min(WINDOW_FRAMES, totalFrames - seek);
    const offset = seek / FRAMES_PER_SECOND;
    const pcm = source.read(seek * samplesPerFrame, (seek + windowFrames) * samplesPerFrame);
    const audioFeatures = await decoder.encode(await model.features(pcm));
    options.signal.throwIfAborted();
    const prompt = options.conditionOnPreviousText === false ? [] : history.slice(promptStart);
    const { result, temperature } = await decodeWithFallback(model, { ...options, random }, { audioFeatures, prompt });
    if (isNoSpeech(result, options.thresholds ?? DEFAULT_THRESHOLDS)) {
      seek += windowFrames;
      continue;
    }
    const split = splitWindow(result.tokens, special.timestampBegin, windowFrames);
    const fresh: DecodedSegment[] = [];
    // The last window is padded to 30 s; a stamp in the padding is clamped to the audio's end.
    const windowEnd = windowFrames / FRAMES_PER_SECOND;
    for (const segment of split.segments) {
      const text = model.detokenize(segment.tokens.filter((id) => id < special.eot));
      const start = Math.min(segment.start, windowEnd);
      const end = Math.min(segment.end, windowEnd);
      // openai clears instantaneous or empty segments, from the output and from the prompt.
      if (start === end || text.trim() === '') continue;
      fresh.push({ start: round(offset + start), end: round(offset + end), text });
      history.push(...segment.tokens);
    }
    if (temperature > PROMPT_RESET_TEMPERATURE) promptStart = history.length;
    seek += split.seekFrames;
    all.push(...fresh);
    if (fresh.length > 0) options.onSegments?.(fresh);
  }
  return all;
}

/**
 * Decodes at each temperature in turn until the result passes. When none does, the most likely
 * of those that are not repetition loops (or of all, if every one is) is kept, as faster-whisper
 * does; openai keeps the last, a sample at temperature 1 that is often noise. The temperature
 * reported is the last one tried, so a failed window still resets the prompt.
 */
async function decodeWithFallback(
  model: LongFormModel,
  options: LongFormOptions,
  window: { audioFeatures: Tensor; prompt: number[] },
): Promise<{ result: WindowDecodeResult; temperature: number }> {
  const temperatures = options.temperatures ?? FALLBACK_TEMPERATURES;
  const thresholds = options.thresholds ?? DEFAULT_THRESHOLDS;
  const failed: Array<{ result: WindowDecodeResult; loop: boolean }> = [];
  let temperature = temperatures[0] ?? 0;
  for (temperature of temperatures) {
    const result = await model.decoder.decode({
      ...window,
      startTokens: options.startTokens,
      temperature,
      maxTokens: options.maxTokensPerWindow ?? 224,
      maxInitialTimestampIndex: options.maxInitialTimestampIndex ?? 50,
      signal: options.signal,
      random: options.random,
    });
    const text = model.detokenize(result.tokens.filter((id) => id < model.tokens.eot));
    if (!needsFallback({ text, avgLogProb: result.avgLogProb, noSpeechProb: result.noSpeechProb }, thresholds)) return { result, temperature };
    failed.push({ result, loop: compressionRatio(text) > thresholds.compressionRatio });
  }
  const candidates = failed.some((entry) => !entry.loop) ? failed.filter((entry) => !entry.loop) : failed;
  const best = candidates.reduce((a, b) => (b.result.avgLogProb > a.result.avgLogProb ? b : a));
  return { result: best.result, temperature };
}

/** The transcript text of segments, as openai joins them. */
export function segmentsText(segments: readonly DecodedSegment[]): string {
  return segments.map((segment) => segment.text).join('').trim();
}

/** mulberry32: small, fast, and plenty for drawing tokens. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
