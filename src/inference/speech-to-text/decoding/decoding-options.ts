/**
 * A request's DecodingOptions as the long-form decoder takes them: prompt texts as tokens,
 * thresholds over openai/whisper's defaults, the temperature schedule bounded.
 */
import { ValidationError } from '../../../errors.js';
import { type DecodingOptions, MAX_PATIENCE, MAX_SEARCH_PRODUCT, MAX_SEARCH_ROWS, MAX_TEMPERATURES, MIN_PATIENCE } from '../../types.js';
import { DEFAULT_THRESHOLDS, FALLBACK_TEMPERATURES, type DecodeThresholds } from './decode-quality.js';
import { promptText } from './whisper-prompt.js';
import type { SearchOptions } from './whisper-search-decode.js';

/** What decodeLongForm takes of them (long-form-decoder.ts LongFormOptions). */
interface LongFormDecoding {
  temperatures: readonly number[];
  thresholds: DecodeThresholds;
  conditionOnPreviousText: boolean;
  initialPrompt: number[];
  hotwords: number[];
  logprobs: boolean;
  /** Beam search and best-of sampling; undefined: one row per decode. */
  search?: SearchOptions;
}

/** How a request's audio is decoded (asr-worker.ts picks it by duration, options, language and VAD). */
export type DecodePath = 'sequential' | 'vadWindows';

/**
 * The search each path runs when the request names neither `beam_size` nor `best_of`, in one
 * table. A clip of 30 s or less without options never reaches it: transformers.js's pipeline
 * decodes it greedily, its text the same to the byte.
 * - sequential (openai's long-form decode, each window prompted with the text before it): greedy
 *   with temperature fallback, as openai/whisper and the `vad_filter=false` answer clients compare with;
 * - vadWindows (independent windows, a file over 30 s by default): beam 2. On the long files built
 *   from the shared clips, beam 2 lowered the WER of German and French against greedy and left
 *   English and Spanish level; beam 3 gained a few more English words at a time over the goal
 *   against faster-whisper. The windows' beams step together in one decoder batch
 *   (docs/benchmarks.md, 2026-12-01), which a sequential decode cannot do.
 */
export const DEFAULT_SEARCH: Readonly<Record<DecodePath, { beamSize: number } | undefined>> = {
  sequential: undefined,
  vadWindows: { beamSize: 2 },
};

/** The search options, which only take effect with more than one beam or sample. */
const SEARCH_KEYS = new Set<keyof DecodingOptions>(['beamSize', 'bestOf', 'patience', 'lengthPenalty']);

/**
 * Whether any option is set: then only our own window decoder can honour them. `beam_size=1`
 * and `best_of=1` (and patience or a length penalty with them) are the default decode: they
 * leave a short clip on the transformers.js pipeline, so its text stays the same to the byte.
 */
export function hasDecodingOptions(options: DecodingOptions | undefined): boolean {
  if (options === undefined) return false;
  const searches = (options.beamSize ?? 1) > 1 || (options.bestOf ?? 1) > 1;
  return Object.entries(options).some(([key, value]) => value !== undefined && (searches || !SEARCH_KEYS.has(key as keyof DecodingOptions)));
}

/**
 * The one place beams × samples are bounded (the cost cap; the HTTP fields only bound each), for
 * every caller of the engine; checked in the worker before the audio is decoded.
 */
function searchOptions(options: DecodingOptions): SearchOptions | undefined {
  const { beamSize = 1, bestOf = 1, patience, lengthPenalty } = options;
  for (const [field, value] of [
    ['beam_size', beamSize],
    ['best_of', bestOf],
  ] as const) {
    if (!Number.isInteger(value) || value < 1 || value > MAX_SEARCH_ROWS) {
      throw new ValidationError(`"${field}" must be an integer from 1 to ${MAX_SEARCH_ROWS}; got ${value}`, field);
    }
  }
  if (beamSize * bestOf > MAX_SEARCH_PRODUCT) {
    throw new ValidationError(
      `"beam_size" × "best_of" must be at most ${MAX_SEARCH_PRODUCT} (the cost cap); got ${beamSize} × ${bestOf} = ${beamSize * bestOf}`,
      'best_of',
    );
  }
  if (patience !== undefined && !(patience >= MIN_PATIENCE && patience <= MAX_PATIENCE)) {
    throw new ValidationError(`"patience" must be a number between ${MIN_PATIENCE} and ${MAX_PATIENCE}; got ${patience}`, 'patience');
  }
  if (lengthPenalty !== undefined && !(lengthPenalty >= 0 && lengthPenalty <= 1)) {
    throw new ValidationError(`"length_penalty" must be a number between 0 and 1; got ${lengthPenalty}`, 'length_penalty');
  }
  if (beamSize === 1 && bestOf === 1) return undefined;
  return { beamSize, bestOf, patience, lengthPenalty };
}

/** `encode`: text → token ids, no special tokens. */
export function longFormDecoding(options: DecodingOptions = {}, encode: (text: string) => number[]): LongFormDecoding {
  const temperatures = options.temperatures ?? FALLBACK_TEMPERATURES;
  if (temperatures.length === 0 || temperatures.length > MAX_TEMPERATURES) {
    throw new ValidationError(`"temperature" takes 1 to ${MAX_TEMPERATURES} values; got ${temperatures.length}`, 'temperature');
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
    search: searchOptions(options),
  };
}

/** `decoding` with `path`'s default search (DEFAULT_SEARCH) where the request asked for no search of its own. */
export function withDefaultSearch(decoding: LongFormDecoding, options: DecodingOptions, path: DecodePath): LongFormDecoding {
  const search = DEFAULT_SEARCH[path];
  if (!search || decoding.search || options.beamSize !== undefined || options.bestOf !== undefined) return decoding;
  return { ...decoding, search: { beamSize: search.beamSize, bestOf: 1, patience: options.patience, lengthPenalty: options.lengthPenalty } };
}
