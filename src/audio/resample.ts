/**
 * Band-limited resampling (windowed sinc, polyphase). Going down to 16 kHz must low-pass
 * first: naive interpolation folds 8–24 kHz content back into the speech band Whisper hears.
 */

/** Zero crossings of the sinc on each side; 16 keeps aliasing well below speech levels. */
const HALF_ZERO_CROSSINGS = 16;
/** The low-pass sits slightly under the target Nyquist so the transition band stays out of it. */
const CUTOFF_MARGIN = 0.95;
/** Rate pairs with more distinct phases than this are computed tap by tap instead of from a table. */
const MAX_PHASES = 4096;

export function resample(input: Float32Array, fromRate: number, toRate: number): Float32Array {
  if (!(Number.isInteger(fromRate) && Number.isInteger(toRate) && fromRate > 0 && toRate > 0)) throw new RangeError(`invalid sample rates ${fromRate} → ${toRate}`);
  if (fromRate === toRate) return input;
  const divisor = gcd(fromRate, toRate);
  const up = toRate / divisor; // output samples per `down` input samples
  const down = fromRate / divisor;
  const outputLength = Math.floor((input.length * up) / down);
  // Cutoff as a fraction of the input Nyquist; the kernel widens by 1/cutoff when downsampling.
  const cutoff = Math.min(1, toRate / fromRate) * CUTOFF_MARGIN;
  const radius = Math.ceil(HALF_ZERO_CROSSINGS / cutoff);
  const kernel = up <= MAX_PHASES ? phaseTable(up, radius, cutoff) : undefined;

  const output = new Float32Array(outputLength);
  for (let i = 0; i < outputLength; i++) {
    const position = i * down; // in units of 1/up input samples
    const center = Math.floor(position / up);
    const phase = position - center * up;
    const taps = kernel ? kernel[phase]! : taps1(phase / up, radius, cutoff);
    let sum = 0;
    const first = center - radius + 1;
    for (let k = 0; k < taps.length; k++) {
      const index = first + k;
      if (index >= 0 && index < input.length) sum += input[index]! * taps[k]!;
    }
    output[i] = sum;
  }
  return output;
}

/** One normalised kernel per phase, so the inner loop does no trigonometry. */
function phaseTable(phases: number, radius: number, cutoff: number): Float32Array[] {
  return Array.from({ length: phases }, (_, phase) => taps1(phase / phases, radius, cutoff));
}

/** Taps for input samples center-radius+1 … center+radius when the output lies `fraction` past center. */
function taps1(fraction: number, radius: number, cutoff: number): Float32Array {
  const taps = new Float32Array(2 * radius);
  let total = 0;
  for (let k = 0; k < taps.length; k++) {
    const distance = k - radius + 1 - fraction;
    const x = distance / radius;
    const window = Math.abs(x) >= 1 ? 0 : 0.5 + 0.5 * Math.cos(Math.PI * x); // Hann
    const weight = cutoff * sinc(cutoff * distance) * window;
    taps[k] = weight;
    total += weight;
  }
  // Unity gain at DC for every phase, so a constant signal stays constant.
  for (let k = 0; k < taps.length; k++) taps[k]! /= total;
  return taps;
}

function sinc(x: number): number {
  if (x === 0) return 1;
  const px = Math.PI * x;
  return Math.sin(px) / px;
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}
