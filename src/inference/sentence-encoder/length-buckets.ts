/**
 * Splits a batch into groups of similar token length, each run padded to its longest member. A
 * forward pass costs about a fixed part per run (every weight read once, whatever the batch) plus
 * a part per padded token, so one 60-token text padded into a batch of 25-token texts would double
 * that batch's cost, while splitting every length apart would pay the fixed part once per text.
 * The split taken is the cheapest under that cost, the fixed part given in tokens.
 */

/**
 * The fixed cost of a run of all-MiniLM-L6-v2 at one thread in padded tokens: a 1-text run costs
 * about as much as 10 more padded tokens in a bigger one. On SST-2 batches of 16 this split ran
 * ~3 % faster than the former rule of at most 25 % padding per bucket (docs/benchmarks.md, "Text
 * classification and translation", 2026-12-01).
 */
export const RUN_TOKENS = 10;

interface BucketOptions {
  /**
   * The fixed cost of one run, in padded tokens' worth: a split that saves fewer padding tokens
   * than this is not worth a run of its own.
   */
  runTokens: number;
  maxBucketSize: number;
}

/** Returns groups of indices into `lengths`, each sorted by ascending length. */
export function lengthBuckets(lengths: readonly number[], options: BucketOptions): number[][] {
  const order = lengths.map((_, index) => index).sort((a, b) => (lengths[a] as number) - (lengths[b] as number));
  const count = order.length;
  // Sorted ascending, the cheapest split is into consecutive runs of the order: cost[j] is the
  // cheapest for its first j texts, start[j] where the last bucket of that split begins.
  const cost = new Float64Array(count + 1).fill(Infinity);
  const start = new Int32Array(count + 1);
  cost[0] = 0;
  for (let end = 1; end <= count; end++) {
    const longest = lengths[order[end - 1] as number] as number;
    for (let first = Math.max(0, end - options.maxBucketSize); first < end; first++) {
      const candidate = (cost[first] as number) + options.runTokens + (end - first) * longest;
      if (candidate < (cost[end] as number)) {
        cost[end] = candidate;
        start[end] = first;
      }
    }
  }
  const buckets: number[][] = [];
  for (let end = count; end > 0; end = start[end] as number) buckets.unshift(order.slice(start[end], end));
  return buckets;
}
