/**
 * chrF (Popović 2015) as sacrebleu computes it by default: character n-grams of order 1..6,
 * whitespace removed, β = 2, statistics summed over the corpus, precision and recall averaged
 * over the orders that occur, then F-beta. Scores are 0–100.
 */

export interface ChrfOptions {
  order?: number;
  beta?: number;
}

/** Per order: [hypothesis n-grams, reference n-grams, matching n-grams]. */
type Statistics = number[][];

export function corpusChrf(hypotheses: readonly string[], references: readonly string[], options: ChrfOptions = {}): number {
  if (hypotheses.length !== references.length) {
    throw new Error(`chrF: ${hypotheses.length} hypotheses but ${references.length} references`);
  }
  const order = options.order ?? 6;
  const totals: Statistics = Array.from({ length: order }, () => [0, 0, 0]);
  hypotheses.forEach((hypothesis, index) => {
    const stats = sentenceStatistics(hypothesis, references[index] as string, order);
    stats.forEach((row, n) => row.forEach((value, k) => ((totals[n] as number[])[k] = ((totals[n] as number[])[k] as number) + value)));
  });
  return fScore(totals, options.beta ?? 2);
}

export function sentenceChrf(hypothesis: string, reference: string, options: ChrfOptions = {}): number {
  return fScore(sentenceStatistics(hypothesis, reference, options.order ?? 6), options.beta ?? 2);
}

function sentenceStatistics(hypothesis: string, reference: string, order: number): Statistics {
  const hyp = [...hypothesis.replace(/\s+/g, '')];
  const ref = [...reference.replace(/\s+/g, '')];
  const stats: Statistics = [];
  for (let n = 1; n <= order; n++) {
    const hypGrams = ngrams(hyp, n);
    const refGrams = ngrams(ref, n);
    let matches = 0;
    for (const [gram, count] of hypGrams) matches += Math.min(count, refGrams.get(gram) ?? 0);
    stats.push([sum(hypGrams), sum(refGrams), matches]);
  }
  return stats;
}

function ngrams(chars: readonly string[], n: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let start = 0; start + n <= chars.length; start++) {
    const gram = chars.slice(start, start + n).join('');
    counts.set(gram, (counts.get(gram) ?? 0) + 1);
  }
  return counts;
}

function sum(counts: Map<string, number>): number {
  let total = 0;
  for (const count of counts.values()) total += count;
  return total;
}

/** sacrebleu's default: precision and recall averaged over the orders that occur, then F-beta. */
function fScore(stats: Statistics, beta: number): number {
  const factor = beta ** 2;
  let precision = 0;
  let recall = 0;
  let effectiveOrder = 0;
  for (const [hyp = 0, ref = 0, match = 0] of stats) {
    if (hyp === 0 || ref === 0) continue;
    effectiveOrder++;
    precision += match / hyp;
    recall += match / ref;
  }
  if (effectiveOrder === 0) return 0;
  precision /= effectiveOrder;
  recall /= effectiveOrder;
  return precision + recall === 0 ? 0 : (100 * (1 + factor) * precision * recall) / (factor * precision + recall);
}
