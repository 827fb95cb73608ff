/**
 * The token ids Whisper's decoding rules need, read from a model's generation config and
 * tokenizer. Timestamps are the ids from `timestampBegin` (`<|0.00|>`) upward, one per 20 ms.
 */
export interface WhisperSpecialTokens {
  /** `<|endoftext|>`: ends a window's text. */
  eot: number;
  /** `<|startoftranscript|>`. */
  sot: number;
  /** `<|startofprev|>`: starts the previous text given as a prompt. */
  sotPrev?: number;
  /** `<|nospeech|>` (`<|nocaptions|>` in older vocabularies): its probability after `sot` says "no speech". */
  noSpeech?: number;
  noTimestamps: number;
  /** `<|0.00|>`. */
  timestampBegin: number;
  /** Tokens never sampled: the config's suppress_tokens plus the task/language/prompt markers. */
  suppress: readonly number[];
  /** Tokens not sampled as the first text token (a blank and `eot`). */
  beginSuppress: readonly number[];
}

/** Seconds per timestamp token. */
export const TIME_PRECISION = 0.02;
/** Log-mel frames per second (hop of 160 samples at 16 kHz). */
export const FRAMES_PER_SECOND = 100;
/** The encoder halves the frame rate: one timestamp step is two mel frames. */
export const INPUT_STRIDE = 2;
/** Mel frames in one 30-s window. */
export const WINDOW_FRAMES = 3000;

/** The generation_config.json fields these come from. */
export interface WhisperGenerationConfig {
  decoder_start_token_id?: number;
  eos_token_id?: number | number[];
  no_timestamps_token_id?: number;
  suppress_tokens?: number[] | null;
  begin_suppress_tokens?: number[] | null;
  max_initial_timestamp_index?: number | null;
  lang_to_id?: Record<string, number> | null;
  task_to_id?: Record<string, number> | null;
}

/** Undefined when the model has no timestamp tokens (then long audio cannot be decoded this way). */
export function whisperSpecialTokens(config: WhisperGenerationConfig, vocab: ReadonlyMap<string, number>): WhisperSpecialTokens | undefined {
  const eot = Array.isArray(config.eos_token_id) ? config.eos_token_id[0] : config.eos_token_id;
  const sot = config.decoder_start_token_id;
  const noTimestamps = config.no_timestamps_token_id;
  if (eot === undefined || sot === undefined || noTimestamps === undefined) return undefined;
  const sotPrev = vocab.get('<|startofprev|>');
  const noSpeech = vocab.get('<|nospeech|>') ?? vocab.get('<|nocaptions|>');
  // As openai/whisper's suppress_tokens="-1": the config's list (non-speech symbols) and every
  // marker that is no text (task, prompt and no-speech tokens).
  const markers = [sot, sotPrev, vocab.get('<|startoflm|>'), noSpeech, ...Object.values(config.task_to_id ?? {})];
  const suppress = [...new Set([...(config.suppress_tokens ?? []), ...markers.filter((id): id is number => id !== undefined)])];
  return {
    eot,
    sot,
    sotPrev,
    noSpeech,
    noTimestamps,
    timestampBegin: noTimestamps + 1,
    suppress,
    beginSuppress: config.begin_suppress_tokens ?? [],
  };
}

/** `<|startoftranscript|>`, then for multilingual models the language and task tokens. */
export function whisperStartTokens(config: WhisperGenerationConfig, request: { language?: string; task?: 'transcribe' | 'translate' }): number[] {
  const tokens = [config.decoder_start_token_id!];
  const languages = config.lang_to_id ?? {};
  if (Object.keys(languages).length === 0) return tokens;
  const language = languages[`<|${request.language ?? 'en'}|>`];
  const task = config.task_to_id?.[request.task ?? 'transcribe'];
  if (language !== undefined) tokens.push(language);
  if (task !== undefined) tokens.push(task);
  return tokens;
}
