/**
 * OpenAI's `dimensions`: the first `dimensions` values of a unit vector, scaled back to unit
 * length, as OpenAI documents for text-embedding-3 ("remove some numbers from the end of the
 * sequence" and normalise). Applied here to every model's vectors; what it costs MiniLM, which
 * was not trained for it (text-embedding-3 was), is measured in docs/benchmarks.md.
 */
export function shortenEmbedding(vector: Float32Array, dimensions: number): Float32Array {
  if (dimensions >= vector.length) return vector;
  const shortened = vector.slice(0, dimensions);
  let norm = 0;
  for (let i = 0; i < dimensions; i++) norm += shortened[i]! * shortened[i]!;
  // An all-zero head stays zero rather than becoming NaN.
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let i = 0; i < dimensions; i++) shortened[i]! *= scale;
  return shortened;
}
