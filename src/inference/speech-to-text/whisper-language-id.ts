/**
 * Whisper's own spoken-language identification, which transformers.js lacks (it decodes a
 * multilingual model as English when no language is given, so Spanish speech comes back as an
 * English paraphrase). As openai/whisper's detect_language and faster-whisper do: encode the first
 * 30-second window, run one decoder step after <|startoftranscript|>, and take the language token
 * with the highest logit.
 */
import { Tensor } from '@huggingface/transformers';

/** The parts of a loaded transformers.js Whisper pipeline this needs. */
export interface LanguageIdPipeline {
  processor: (audio: Float32Array) => Promise<{ input_features: Tensor }>;
  model: {
    generation_config: { decoder_start_token_id?: number; lang_to_id?: Record<string, number> } | null;
    (inputs: { input_features: Tensor; decoder_input_ids: Tensor }): Promise<{ logits: Tensor }>;
  };
}

const WINDOW_SECONDS = 30;

/** The Whisper language code (`es`, `fr`, …) spoken in the first 30 s, or undefined if the model has no language tokens. */
export async function detectWhisperLanguage(asr: LanguageIdPipeline, audio: Float32Array, sampleRate: number): Promise<string | undefined> {
  const config = asr.model.generation_config;
  const languages = Object.entries(config?.lang_to_id ?? {});
  if (config?.decoder_start_token_id === undefined || languages.length === 0) return undefined;

  const { input_features } = await asr.processor(audio.subarray(0, WINDOW_SECONDS * sampleRate));
  const start = new Tensor('int64', BigInt64Array.of(BigInt(config.decoder_start_token_id)), [1, 1]);
  const { logits } = await asr.model({ input_features, decoder_input_ids: start });
  const scores = logits.data as Float32Array; // [1, 1, vocab]: the one step's distribution
  let best = languages[0]!;
  for (const entry of languages) if (scores[entry[1]]! > scores[best[1]]!) best = entry;
  return best[0].replace(/^<\|(.+)\|>$/, '$1');
}
