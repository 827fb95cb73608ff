/**
 * Word error rate: word-level Levenshtein distance (substitutions + deletions + insertions)
 * divided by the number of reference words. Inputs are already-normalised word lists, so the
 * same function serves plain STT evaluation and the TTS → STT round trip.
 */

export interface WerCounts {
  substitutions: number;
  deletions: number;
  insertions: number;
  /** Words in the reference. */
  referenceWords: number;
}

export interface WerResult extends WerCounts {
  /** (S + D + I) / N; 0 when both are empty, 1 per inserted word when only the reference is. */
  wer: number;
}

export function wordErrors(reference: readonly string[], hypothesis: readonly string[]): WerResult {
  const n = reference.length;
  const m = hypothesis.length;
  // cost[j] holds the edit distance of reference[0..i) vs hypothesis[0..j); ops tracks its split.
  let previous = Array.from({ length: m + 1 }, (_, j) => ({ cost: j, s: 0, d: 0, i: j }));
  for (let i = 1; i <= n; i++) {
    const current = [{ cost: i, s: 0, d: i, i: 0 }];
    for (let j = 1; j <= m; j++) {
      const diagonal = previous[j - 1]!;
      const up = previous[j]!;
      const left = current[j - 1]!;
      const same = reference[i - 1] === hypothesis[j - 1];
      const candidates = [
        { ...diagonal, cost: diagonal.cost + (same ? 0 : 1), s: diagonal.s + (same ? 0 : 1) },
        { ...up, cost: up.cost + 1, d: up.d + 1 },
        { ...left, cost: left.cost + 1, i: left.i + 1 },
      ];
      current.push(candidates.reduce((best, c) => (c.cost < best.cost ? c : best)));
    }
    previous = current;
  }
  const last = previous[m]!;
  const errors = last.s + last.d + last.i;
  return {
    substitutions: last.s,
    deletions: last.d,
    insertions: last.i,
    referenceWords: n,
    wer: n === 0 ? m : errors / n,
  };
}

/** Corpus WER: total errors over total reference words (not the mean of per-clip rates). */
export function corpusWer(results: readonly WerCounts[]): number {
  let errors = 0;
  let words = 0;
  for (const r of results) {
    errors += r.substitutions + r.deletions + r.insertions;
    words += r.referenceWords;
  }
  return words === 0 ? 0 : errors / words;
}
