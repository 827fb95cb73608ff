/**
 * Splits a batch into groups of similar token length so that padding to the longest member
 * wastes little compute: a forward pass costs roughly (members × longest length), so one
 * 60-token text padded into a batch of 25-token texts would double the cost of the batch.
 */

interface BucketOptions {
  /** Largest accepted padded/real token ratio of a bucket (1.25 → at most 25 % padding). */
  maxPaddingRatio: number;
  maxBucketSize: number;
}

/** Returns groups of indices into `lengths`, each sorted by ascending length. */
export function lengthBuckets(lengths: readonly number[], options: BucketOptions): number[][] {
  const order = lengths.map((_, index) => index).sort((a, b) => (lengths[a] as number) - (lengths[b] as number));
  const buckets: number[][] = [];
  let current: number[] = [];
  let realTokens = 0;
  for (const index of order) {
    const length = lengths[index] as number;
    // Sorted ascending, so the newcomer is the longest and sets the padded length.
    const padded = (current.length + 1) * length;
    const fits = current.length < options.maxBucketSize && padded <= options.maxPaddingRatio * (realTokens + length);
    if (current.length > 0 && !fits) {
      buckets.push(current);
      current = [];
      realTokens = 0;
    }
    current.push(index);
    realTokens += length;
  }
  if (current.length > 0) buckets.push(current);
  return buckets;
}
