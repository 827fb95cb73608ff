/**
 * A trained linear head over sentence embeddings (manifest `options.head`): one weight row and
 * one bias per default label, confidences softmax(W·e + b). Lets an embedding classifier use
 * a small logistic regression fitted offline (scripts/tools/train-sentiment-head.py) instead of
 * prototype similarity, with no extra model file.
 */
import type { EmbeddingClassifierOptions } from './classifier-options.js';
import { softmax } from './label-scores.js';

interface LinearHead {
  /** One row per label, in the order of `options.labels`. */
  weights: Float32Array[];
  bias: Float32Array;
}

/** `options.head` (checked against the labels at start-up) as typed arrays; undefined when absent. */
export function linearHead(head: EmbeddingClassifierOptions['head']): LinearHead | undefined {
  if (head === undefined) return undefined;
  return { weights: head.weights.map((row) => Float32Array.from(row)), bias: Float32Array.from(head.bias) };
}

/** The head's input width: the embedding size it was trained on. */
export function headWidth(head: LinearHead): number {
  return head.weights[0]?.length ?? 0;
}

/** softmax(W·e + b): one confidence per label, summing to 1. */
export function headConfidences(head: LinearHead, embedding: Float32Array): number[] {
  if (embedding.length !== headWidth(head)) {
    throw new Error(`embedding has ${embedding.length} values but the head expects ${headWidth(head)}`);
  }
  const logits = head.weights.map((row, label) => {
    let sum = head.bias[label]!;
    for (let i = 0; i < row.length; i++) sum += row[i]! * embedding[i]!;
    return sum;
  });
  return softmax(logits);
}
