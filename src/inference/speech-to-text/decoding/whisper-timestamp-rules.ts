/**
 * openai/whisper's logit filters for decoding with timestamps (SuppressTokens, SuppressBlank,
 * ApplyTimestampRules in whisper/decoding.py), applied in place to one step's logits:
 * - never `<|notimestamps|>` or the suppressed tokens; no blank or `eot` as the first text token;
 * - the first token is a timestamp no later than `maxInitialTimestampIndex`;
 * - timestamps come in pairs (a segment's end, the next one's start), except right before `eot`;
 * - timestamps never go back, and a segment has a non-zero length;
 * - when the timestamps together are likelier than any single text token, one of them is taken.
 */
import type { WhisperSpecialTokens } from './whisper-special-tokens.js';

interface TimestampRuleOptions {
  /** Index of the last allowed first timestamp (50 = 1.0 s); undefined for no limit. */
  maxInitialTimestampIndex?: number;
}

/** `sampled`: the tokens generated so far in this window (after the prompt and start tokens). */
export function applyTimestampRules(logits: Float32Array, sampled: readonly number[], tokens: WhisperSpecialTokens, options: TimestampRuleOptions = {}): void {
  const { timestampBegin, eot } = tokens;
  for (const id of tokens.suppress) if (id < logits.length) logits[id] = -Infinity;
  logits[tokens.noTimestamps] = -Infinity;
  if (sampled.length === 0) for (const id of tokens.beginSuppress) if (id < logits.length) logits[id] = -Infinity;

  const length = sampled.length;
  const lastWasTimestamp = length >= 1 && sampled[length - 1]! >= timestampBegin;
  const penultimateWasTimestamp = length < 2 || sampled[length - 2]! >= timestampBegin;
  if (lastWasTimestamp) {
    if (penultimateWasTimestamp)
      logits.fill(-Infinity, timestampBegin); // a text token must follow
    else logits.fill(-Infinity, 0, eot); // the closing timestamp of a pair, or eot
  }
  let lastTimestamp = -1;
  for (let index = length - 1; index >= 0; index--) {
    if (sampled[index]! >= timestampBegin) {
      lastTimestamp = sampled[index]!;
      break;
    }
  }
  if (lastTimestamp >= 0) {
    // A pair's second stamp may equal its first only as the segment's end is being closed.
    const lowest = lastWasTimestamp && !penultimateWasTimestamp ? lastTimestamp : lastTimestamp + 1;
    logits.fill(-Infinity, timestampBegin, lowest);
  }
  if (length === 0) {
    logits.fill(-Infinity, 0, timestampBegin);
    if (options.maxInitialTimestampIndex !== undefined) logits.fill(-Infinity, timestampBegin + options.maxInitialTimestampIndex + 1);
  }

  // Compare log-sum-exp of the timestamps with the best text token, on the softmax scale. One
  // pass over the text tokens: the maximum of all is theirs or a timestamp's.
  let bestText = -Infinity;
  for (let index = 0; index < timestampBegin; index++) if (logits[index]! > bestText) bestText = logits[index]!;
  let max = bestText;
  for (let index = timestampBegin; index < logits.length; index++) if (logits[index]! > max) max = logits[index]!;
  if (max === -Infinity) return;
  let timestampMass = 0;
  for (let index = timestampBegin; index < logits.length; index++) timestampMass += Math.exp(logits[index]! - max);
  if (timestampMass > 0 && Math.log(timestampMass) + max > bestText) logits.fill(-Infinity, 0, timestampBegin);
}
