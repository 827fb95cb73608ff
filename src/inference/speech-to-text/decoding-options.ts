/**
 * A request's DecodingOptions as the long-form decoder takes them: prompt texts as tokens,
 * thresholds over openai/whisper's defaults, the temperature schedule bounded.
 */
import { ValidationError } from '../../errors.js';
import { type DecodingOptions, MAX_TEMPERATURES } from '../types.js';
import { DEFAULT_THRESHOLDS, FALLBACK_TEMPERATURES, type DecodeThresholds } from './decode-quality.js';
import { promptText } from './whisper-prompt.js';

/** What decodeLongForm takes of them (long-form-decoder.ts LongFormOptions). */
interface LongFormDecoding {
  temperatures: readonly number[];
  thresholds: DecodeThresholds;
  conditionOnPreviousText: boolean;
  initialPrompt: number[];
  hotwords: number[];
  logprobs: boolean;
}

/** Whether any option is set: then only our own window decoder can honour them. */
export function hasDecodingOptions(options: DecodingOptions | undefined): boolean {
  return options !== undefined && Object.values(options).some((value) => value !== undefined);
}

/** `encode`: text → token ids, no special tokens. */
export function longFormDecoding(options: DecodingOptions = {}, encode: (text: string) => number[]): LongFormDecoding {
  const temperatures = options.temperatures ?? FALLBACK_TEMPERATURES;
  if (temperatures.length === 0 || temperatures.length > MAX_TEMPERATURES) {
    throw new ValidationError(`"temperature" takes 1 to ${MAX_TEMPERATURES} values; got ${temperatures.length}`);
  }
  const text = (value: string | undefined) => (value === undefined || value.trim() === '' ? [] : encode(promptText(value)));
  return {
    temperatures,
    thresholds: {
      compressionRatio: options.compressionRatioThreshold ?? DEFAULT_THRESHOLDS.compressionRatio,
      logProb: options.logProbThreshold ?? DEFAULT_THRESHOLDS.logProb,
      noSpeech: options.noSpeechThreshold ?? DEFAULT_THRESHOLDS.noSpeech,
    },
    conditionOnPreviousText: options.conditionOnPreviousText ?? true,
    initialPrompt: text(options.prompt),
    hotwords: text(options.hotwords),
    logprobs: options.logprobs ?? false,
  };
}
