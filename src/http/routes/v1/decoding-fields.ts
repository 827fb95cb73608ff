/**
 * The Whisper decoding options of the speech-to-text routes (docs/api.md, "Decoding options"): one
 * schema for every route, as form fields, query parameters or X- headers, and the step that turns
 * them into the Transcriber's DecodingOptions.
 */
import { Type, type Static, type TObject } from '@sinclair/typebox';
import { type DecodingOptions, MAX_PATIENCE, MAX_SEARCH_PRODUCT, MAX_SEARCH_ROWS, MAX_TEMPERATURES, MIN_PATIENCE } from '../../../inference/types.js';
import { ValidationError } from '../../../errors.js';
import { NumberIn, StringEnum, Text } from '../../schema-types.js';

/** Longer prompts are cut to their last 223 tokens anyway (about 1,000 characters of English). */
const MAX_PROMPT_CHARACTERS = 4_000;

/** A temperature from 0 to 1, as text (OpenAI's range; openai/whisper's schedule ends at 1). */
const TEMPERATURE = String.raw`(?:0(?:\.[0-9]+)?|1(?:\.0+)?|\.[0-9]+)`;

const promptRule = (description: string) => Text(description, { maxLength: MAX_PROMPT_CHARACTERS });

export const decodingFields = {
  prompt: Type.Optional(
    promptRule(
      'Text that came before the audio: names and spellings to keep, the style to follow. Given to Whisper as previous text (`<|startofprev|>`, its last 223 tokens) for the first 30-s window, and for later ones while `condition_on_previous_text` is on.',
    ),
  ),
  initial_prompt: Type.Optional(promptRule("Same as `prompt` (openai/whisper's and faster-whisper's name); send one of the two.")),
  hotwords: Type.Optional(
    promptRule(
      "faster-whisper's hotwords: words to expect, given as previous text to every window (before the text so far, together at most 223 tokens; hotwords first).",
    ),
  ),
  temperature: Type.Optional(
    Text(
      `Sampling temperature from 0 to 1: one value decodes at it (0: greedy) without fallback; a comma-separated list (or repeated \`temperature[]\`) of up to ${MAX_TEMPERATURES} is a fallback schedule, tried in turn while a window fails the thresholds. Default: 0,0.2,0.4,0.6,0.8,1. Unlike OpenAI's API, where 0 means that schedule.`,
      {
        maxLength: 100,
        pattern: String.raw`^\s*${TEMPERATURE}(?:\s*,\s*${TEMPERATURE}){0,${MAX_TEMPERATURES - 1}}\s*$`,
        invalidMessage: `must be a number from 0 to 1, or up to ${MAX_TEMPERATURES} of them comma-separated (such as 0,0.2,0.4)`,
      },
    ),
  ),
  compression_ratio_threshold: Type.Optional(
    NumberIn(
      { min: 1, max: 10 },
      { description: "A window whose text's gzip compression ratio is above this (a repetition loop) is decoded again at the next temperature (default 2.4)." },
    ),
  ),
  log_prob_threshold: Type.Optional(
    NumberIn(
      { min: -20, max: 0 },
      { description: 'A window whose average log probability per token is below this is decoded again at the next temperature (default -1).' },
    ),
  ),
  no_speech_threshold: Type.Optional(
    NumberIn(
      { min: 0, max: 1 },
      {
        description:
          'A window whose `<|nospeech|>` probability is above this, and whose text is below `log_prob_threshold`, is skipped as silence (default 0.6).',
      },
    ),
  ),
  beam_size: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_SEARCH_ROWS,
      description: `Beam search with this many beams at temperature 0, ranked as openai/whisper ranks them (sum log probability over the length, or \`length_penalty\`). Default 1 (greedy), and 2 for a file decoded in VAD windows (over 30 s by default, or \`vad_filter=true\`) unless \`best_of\` is given. faster-whisper's default is 5. \`beam_size\` × \`best_of\` ≤ ${MAX_SEARCH_PRODUCT}.`,
    }),
  ),
  best_of: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_SEARCH_ROWS,
      description: `At a temperature above 0 (a fallback, or \`temperature\`), draw this many samples and keep the likeliest. Default 1. faster-whisper's default is 5. \`beam_size\` × \`best_of\` ≤ ${MAX_SEARCH_PRODUCT}.`,
    }),
  ),
  patience: Type.Optional(
    NumberIn(
      { min: MIN_PATIENCE, max: MAX_PATIENCE },
      { description: 'Beam search stops once `beam_size` × `patience` beams have finished (default 1; used when `beam_size` > 1).' },
    ),
  ),
  length_penalty: Type.Optional(
    NumberIn(
      { min: 0, max: 1 },
      {
        description:
          "Ranks beams and samples by sum log probability over ((5 + length) / 6) ^ length_penalty (Google NMT's alpha) instead of over the length (the default, openai/whisper's).",
      },
    ),
  ),
  condition_on_previous_text: Type.Optional(
    StringEnum(['true', 'false'] as const, {
      description: '`true` (default): each window has the text before it as its prompt. `false`: only the first window has (the `prompt`).',
    }),
  ),
};

type DecodingFields = Static<TObject<typeof decodingFields>>;

/** The fields' DecodingOptions; undefined when none is set (the default decode). */
export function toDecodingOptions(fields: DecodingFields): DecodingOptions | undefined {
  if (fields.prompt !== undefined && fields.initial_prompt !== undefined) {
    throw new ValidationError('"prompt" and "initial_prompt" are the same option: send one of them', 'initial_prompt');
  }
  const options: DecodingOptions = {
    prompt: fields.prompt ?? fields.initial_prompt,
    hotwords: fields.hotwords,
    temperatures: fields.temperature?.split(',').map(Number),
    compressionRatioThreshold: fields.compression_ratio_threshold,
    logProbThreshold: fields.log_prob_threshold,
    noSpeechThreshold: fields.no_speech_threshold,
    conditionOnPreviousText: fields.condition_on_previous_text === undefined ? undefined : fields.condition_on_previous_text === 'true',
    beamSize: fields.beam_size,
    bestOf: fields.best_of,
    patience: fields.patience,
    lengthPenalty: fields.length_penalty,
  };
  // beam_size × best_of is bounded in one place, with the other search options (the engine's decoding-options.ts).
  const set = Object.entries(options).filter(([, value]) => value !== undefined);
  return set.length > 0 ? (Object.fromEntries(set) as DecodingOptions) : undefined;
}
