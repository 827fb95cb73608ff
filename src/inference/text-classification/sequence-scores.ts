/** Logits → confidences: softmax over the labels, or one sigmoid per label for multi-label models. */
import { sigmoid, softmax } from './label-scores.js';

export function confidences(logits: ArrayLike<number>, multiLabel: boolean): number[] {
  return multiLabel ? Array.from(logits, sigmoid) : softmax(logits);
}
