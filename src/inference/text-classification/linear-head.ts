/**
 * A trained linear head over sentence embeddings (manifest `options.head`): one weight row and
 * one bias per default label, confidences softmax(W·e + b). Lets an embedding classifier use
 * a small logistic regression fitted offline (scripts/tools/train-sentiment-head.py) instead of
 * prototype similarity, with no extra model file.
 */
import type { ManifestEntry } from '../manifest.js';
import { ClassifierOptionError } from './classifier-options.js';
import { softmax } from './label-scores.js';

export interface LinearHead {
  /** One row per label, in the order of `options.labels`. */
  weights: Float32Array[];
  bias: Float32Array;
}

function finiteNumbers(value: unknown): value is number[] {
  return Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'number' && Number.isFinite(item));
}

/** `options.head` = `{weights: number[][], bias: number[]}`, one row per label; undefined when absent. */
export function linearHead(entry: ManifestEntry, labelCount: number): LinearHead | undefined {
  const value = entry.options?.['head'];
  if (value === undefined) return undefined;
  const { weights, bias } = (value ?? {}) as Record<string, unknown>;
  const fail = (expected: string): never => {
    throw new ClassifierOptionError(`models.json "${entry.id}": options.head ${expected}`);
  };
  if (!Array.isArray(weights) || !weights.every(finiteNumbers)) fail('.weights must be an array of number arrays');
  if (!finiteNumbers(bias)) fail('.bias must be an array of numbers');
  const rows = weights as number[][];
  const biases = bias as number[];
  if (rows.length !== labelCount || biases.length !== labelCount) {
    fail(`must have one weight row and one bias per label (${labelCount} labels)`);
  }
  if (new Set(rows.map((row) => row.length)).size !== 1) fail('.weights rows must all have the same length');
  return { weights: rows.map((row) => Float32Array.from(row)), bias: Float32Array.from(biases) };
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
