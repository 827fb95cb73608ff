/**
 * The names a Whisper decoder graph and our code agree on, in one place: optimum's names for
 * decoder_model_merged's inputs, outputs and nodes (what an export gives us), and the ones our
 * rewrites add (self-attention-steps.ts, logits-from.ts, grouped-cross-attention.ts), which the
 * window decoder (decoder/decoder-passes.ts) feeds and fetches. A graph whose names differ is not
 * rewritten, so a change here changes both sides at once.
 */

/** optimum's decoder inputs. */
export const INPUT_IDS = 'input_ids';
export const ENCODER_HIDDEN_STATES = 'encoder_hidden_states';
export const USE_CACHE_BRANCH = 'use_cache_branch';
/** optimum's decoder output of the next token's scores. */
export const LOGITS = 'logits';

/** optimum's key/value cache: `past_key_values.N.decoder.key` in, `present.N.decoder.key` out. */
export const PAST_PREFIX = 'past_key_values.';
export const PRESENT_PREFIX = 'present.';
/** Ours (self-attention-steps.ts): the positions a run read, in place of `present.N.decoder.*`. */
export const STEP_PREFIX = 'step.';
/** Ours (self-attention-steps.ts): positions every row shares, given once beside `past_key_values.N.decoder.*`. */
export const SHARED_PREFIX = 'shared.';
/** Ours (logits-from.ts): the first token read whose logits a run computes. */
export const LOGITS_FROM = 'logits_from';

/** Which attention a cache name is of: `.decoder.` the self-attention, `.encoder.` the cross-attention. */
const SELF_ATTENTION = '.decoder.';
const CROSS_ATTENTION = '.encoder.';

/** An output of the export recipe that keeps cross-attention (scripts/test-models/lib/whisper-ct2.sh), one per layer. */
export function crossAttentionOutput(layer: number): string {
  return `cross_attentions.${layer}`;
}

/** optimum's name of the cached branch of decoder_model_merged's If (use_cache_branch true). */
export const CACHED_BRANCH = 'then_branch';
/** optimum's node of a layer's cross-attention scores: `/model/decoder/layers.N/encoder_attn/MatMul`. */
export const CROSS_ATTENTION_SCORES_NODE = /encoder_attn\/MatMul$/;
/** optimum's self-attention presents and pasts: `present.N.decoder.key`, `past_key_values.N.decoder.value`. */
export const PRESENT_SELF_ATTENTION = /^present\.(\d+)\.decoder\.(key|value)$/;
export const PAST_SELF_ATTENTION = /^past_key_values\.\d+\.decoder\.(key|value)$/;

export function isSelfAttentionCache(name: string, prefix: string): boolean {
  return name.startsWith(prefix) && name.includes(SELF_ATTENTION);
}

export function isCrossAttentionCache(name: string, prefix: string): boolean {
  return name.startsWith(prefix) && name.includes(CROSS_ATTENTION);
}

/** The step output in place of `present.N.decoder.*`. */
export function stepOutputName(present: string): string {
  return present.replace(/^present\./, STEP_PREFIX);
}

/** The past input a present or step output feeds on the next run. */
export function pastInputName(output: string): string {
  return output.replace(/^(present|step)\./, PAST_PREFIX);
}

/** The input of the positions every row shares beside `past_key_values.N.decoder.*` (shared.N.decoder.*). */
export function sharedInputName(past: string): string {
  return past.replace(/^past_key_values\./, SHARED_PREFIX);
}
