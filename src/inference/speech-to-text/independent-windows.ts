/**
 * Independent 30-s windows (VAD chunks of one file, none prompted by another's text) decoded
 * together: one encoder run over them all, one lockstep decode at the first temperature, then
 * the windows that fail openai's checks decoded again together at the next temperature, and so
 * on, each window ending as long-form-decoder.ts's decodeWithFallback would end it alone.
 * The caller passes as many windows as one batch should hold (whisperBatchSize).
 */
import type { Tensor } from '@huggingface/transformers';
import { bestFailedDecode, DEFAULT_THRESHOLDS, FALLBACK_TEMPERATURES, needsFallback, type DecodeThresholds, type FailedDecode } from './decode-quality.js';
import type { SearchOptions } from './whisper-search-decode.js';
import type { WhisperSpecialTokens } from './whisper-special-tokens.js';
import type { WhisperWindowDecoder, WindowDecodeResult } from './whisper-window-decoder.js';

export interface IndependentWindow {
  /** Log-mel input features [1, mel, 3000]. */
  inputFeatures: Tensor;
  /** Earlier text of the same chunk to condition on; none by default. */
  prompt?: readonly number[];
  /** Draws tokens at fallback temperatures; give each window its own, so its text does not depend on its batch. */
  random?: () => number;
}

export interface DecodedWindow {
  result: WindowDecodeResult;
  /** The last temperature tried (as decodeWithFallback reports it). */
  temperature: number;
  /** The result's text. */
  text: string;
  /** The encoder's output, for word timestamps (decoder.crossAttention). */
  audioFeatures: Tensor;
}

export interface WindowBatchModel {
  decoder: Pick<WhisperWindowDecoder, 'encodeBatch' | 'decodeBatch'>;
  tokens: WhisperSpecialTokens;
  /** Text of text tokens. */
  detokenize(ids: number[]): string;
}

export interface WindowBatchOptions {
  startTokens: readonly number[];
  signal: AbortSignal;
  temperatures?: readonly number[];
  thresholds?: DecodeThresholds;
  /** Tokens per window at most (openai: 224). */
  maxTokensPerWindow?: number;
  maxInitialTimestampIndex?: number;
  /** Beam search and best-of sampling: such windows are decoded one at a time (decodeBatch). */
  search?: SearchOptions;
}

export async function decodeIndependentWindows(
  model: WindowBatchModel,
  windows: readonly IndependentWindow[],
  options: WindowBatchOptions,
): Promise<DecodedWindow[]> {
  const temperatures = options.temperatures ?? FALLBACK_TEMPERATURES;
  const thresholds = options.thresholds ?? DEFAULT_THRESHOLDS;
  options.signal.throwIfAborted();
  const audioFeatures = await model.decoder.encodeBatch(windows.map((window) => window.inputFeatures));
  const decoded: DecodedWindow[] = new Array(windows.length);
  const failed = windows.map((): FailedDecode<WindowDecodeResult>[] => []);
  let pending = windows.map((_, index) => index);
  for (const [round, temperature] of temperatures.entries()) {
    if (pending.length === 0) break;
    const results = await model.decoder.decodeBatch(
      pending.map((index) => ({
        audioFeatures: audioFeatures[index]!,
        prompt: windows[index]!.prompt ?? [],
        startTokens: options.startTokens,
        temperature,
        maxTokens: options.maxTokensPerWindow ?? 224,
        maxInitialTimestampIndex: options.maxInitialTimestampIndex ?? 50,
        signal: options.signal,
        random: windows[index]!.random,
        search: options.search,
      })),
    );
    const last = round === temperatures.length - 1;
    pending = pending.filter((index, position) => {
      const result = results[position]!;
      const text = model.detokenize(result.tokens.filter((id) => id < model.tokens.eot));
      if (!needsFallback({ text, avgLogProb: result.avgLogProb, noSpeechProb: result.noSpeechProb }, thresholds)) {
        decoded[index] = { result, temperature, text, audioFeatures: audioFeatures[index]! };
        return false;
      }
      failed[index]!.push({ result, text });
      if (!last) return true;
      const best = bestFailedDecode(failed[index]!, thresholds);
      decoded[index] = { result: best.result, temperature, text: best.text, audioFeatures: audioFeatures[index]! };
      return false;
    });
  }
  return decoded;
}
