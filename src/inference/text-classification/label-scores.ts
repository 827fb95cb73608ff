/** Turns raw model scores into the wire's label list: every label, sorted by confidence, descending. */
import type { Label } from '../types.js';

/** Numerically stable softmax; the result sums to 1. */
export function softmax(values: ArrayLike<number>, temperature = 1): number[] {
  const scaled = Array.from(values, (value) => value / temperature);
  const max = Math.max(...scaled);
  const exps = scaled.map((value) => Math.exp(value - max));
  const sum = exps.reduce((total, value) => total + value, 0);
  return exps.map((value) => value / sum);
}

export function sigmoid(value: number): number {
  return 1 / (1 + Math.exp(-value));
}

export function sortedLabels(names: readonly string[], confidences: readonly number[]): Label[] {
  if (names.length !== confidences.length) {
    throw new Error(`${names.length} labels but ${confidences.length} confidences`);
  }
  return names.map((label, index) => ({ label, confidence: confidences[index] as number })).sort((a, b) => b.confidence - a.confidence);
}
