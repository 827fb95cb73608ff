/**
 * Choosing the next token from one step's logits: greedily, or drawn at a temperature, and the
 * log probability openai/whisper's fallback rules average over a window.
 */

export function argmax(values: Float32Array): number {
  let best = 0;
  for (let index = 1; index < values.length; index++) if (values[index]! > values[best]!) best = index;
  return best;
}

/** log softmax(values)[index]. */
export function logSoftmaxAt(values: Float32Array, index: number): number {
  let max = -Infinity;
  for (const value of values) if (value > max) max = value;
  let sum = 0;
  for (const value of values) sum += Math.exp(value - max);
  return values[index]! - max - Math.log(sum);
}

/** A token drawn from softmax(values / temperature). */
export function sample(values: Float32Array, temperature: number, random: () => number): number {
  let max = -Infinity;
  for (const value of values) if (value > max) max = value;
  const weights = new Float64Array(values.length);
  let total = 0;
  for (let index = 0; index < values.length; index++) {
    const weight = Math.exp((values[index]! - max) / temperature);
    weights[index] = weight;
    total += weight;
  }
  let target = random() * total;
  for (let index = 0; index < weights.length; index++) {
    target -= weights[index]!;
    if (target <= 0 && weights[index]! > 0) return index;
  }
  return argmax(values);
}

/** mulberry32: small, fast, and plenty for drawing tokens. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
