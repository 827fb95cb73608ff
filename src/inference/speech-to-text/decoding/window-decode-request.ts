/** What a decode of one 30-s window is asked (WhisperWindowDecoder.decode, decodeBatch) and gives back. */
import type { Tensor } from '@huggingface/transformers';
import type { SearchOptions } from './whisper-search-decode.js';

export interface WindowDecodeRequest {
  /** The encoder's output for this window. */
  audioFeatures: Tensor;
  /** Earlier text (tokens, timestamps included) to condition on; empty for none. */
  prompt: readonly number[];
  /** `<|startoftranscript|>` and, for multilingual models, language and task tokens. */
  startTokens: readonly number[];
  temperature: number;
  /** Tokens sampled at most (openai: 224, half the decoder's context). */
  maxTokens: number;
  /** Index of the last allowed first timestamp (openai: 50, i.e. 1 s). */
  maxInitialTimestampIndex?: number;
  signal: AbortSignal;
  /** Deterministic sampling at temperature > 0 (tests); Math.random otherwise. */
  random?: () => number;
  /** Beam search at temperature 0, best-of sampling above (whisper-search-decode.ts); none: one row. */
  search?: SearchOptions;
}

export interface WindowDecodeResult {
  /** The sampled tokens, without the final `eot`. */
  tokens: number[];
  /** Each sampled token's log probability (unscaled by the temperature, as openai), aligned with `tokens`. */
  tokenLogProbs?: number[];
  avgLogProb: number;
  noSpeechProb: number;
}

/** Tokens of earlier text kept as the prompt (openai: n_ctx / 2 - 1). */
export const MAX_PROMPT_TOKENS = 223;
