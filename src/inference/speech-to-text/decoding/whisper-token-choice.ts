/**
 * Choosing the next token from one step's logits: greedily, or drawn at a temperature, and the
 * log probability openai/whisper's fallback rules average over a window.
 */

export function argmax(values: Float32Array): number {
  let best = 0;
  for (let index = 1; index < values.length; index++) if (values[index]! > values[best]!) best = index;
  return best;
}

/** log softmax(values)[index]; `max`: the values' maximum, when the caller knows it. */
export function logSoftmaxAt(values: Float32Array, index: number, max?: number): number {
  return values[index]! - logSumExp(values, max);
}

/** exp(x) = 2^(k/64) · exp(r) with k = ⌈x · 64/ln 2⌉ for x ≤ 0, so r is in (-ln 2/64, 0]. */
const STEPS_PER_UNIT = 64 / Math.LN2;
const STEP = Math.LN2 / 64;
/**
 * Below this a term is under 1e-45 of the largest (which is 1): all 51,865 of them together
 * change the sum by less than 1e-40, so they are left out (-Infinity, a suppressed token, too).
 */
const LOWEST_EXPONENT = -104;
/** 2^(-j/64) for every step down to LOWEST_EXPONENT: one look-up a term. */
const STEPS = Float64Array.from({ length: Math.ceil(-LOWEST_EXPONENT * STEPS_PER_UNIT) + 2 }, (_, j) => 2 ** (-j / 64));

/**
 * log Σ exp(values), with each exp from a table of 2^(-j/64) and a degree-3 polynomial over
 * |r| < ln 2/64 (relative error under 6e-10 a term, finer than the float32 logits it sums).
 * About five times as fast as Math.exp, whose call was most of a decoder step's time outside the
 * model: every row of every step sums the whole vocabulary (51,865) for its token's log
 * probability.
 */
export function logSumExp(values: Float32Array, max = values[argmax(values)] ?? -Infinity): number {
  if (max === -Infinity) return max;
  let sum = 0;
  for (let index = 0; index < values.length; index++) {
    const x = values[index]! - max;
    if (!(x >= LOWEST_EXPONENT)) continue;
    // k ≤ 0 rounds toward zero, so r = x - k·STEP is in (-STEP, 0].
    const k = (x * STEPS_PER_UNIT) | 0;
    const r = x - k * STEP;
    sum += STEPS[-k]! * (1 + r * (1 + r * (0.5 + r * (1 / 6))));
  }
  return max + Math.log(sum);
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
