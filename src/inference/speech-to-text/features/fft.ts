/**
 * A small mixed-radix FFT (Stockham, radices 2–5) for the fixed sizes audio features use, and
 * a real-input transform built on a half-size complex one. transformers.js runs Whisper's
 * 400-point frames through Bluestein's algorithm (three 1024-point FFTs); this does one
 * 200-point complex FFT per frame.
 */

interface Stage {
  radix: number;
  stride: number;
  /** Length of each sub-sequence after this stage. */
  m: number;
  /** cos/sin of the combined twiddle for (j, t, r), at [(j·p + t)·p + r]. */
  cos: Float64Array;
  sin: Float64Array;
}

export class ComplexFft {
  readonly size: number;
  readonly #stages: Stage[];
  readonly #scratchRe: Float64Array;
  readonly #scratchIm: Float64Array;

  constructor(size: number) {
    this.size = size;
    // Stockham decimation in frequency, generalised to radix p: a stage with stride s turns
    // sequences of length L = n/s into p interleaved ones of length m = L/p:
    //   y[q + s(p·j + t)] = Σ_r x[q + s(j + m·r)] · ω_n^{s·j·t + (n/p)·r·t}
    // (ω_L^{jt} and ω_p^{rt} folded into one table per stage). No bit reversal is needed.
    this.#stages = [];
    let stride = 1;
    for (const p of factorize(size)) {
      const m = size / (stride * p);
      const cos = new Float64Array(m * p * p);
      const sin = new Float64Array(m * p * p);
      for (let j = 0; j < m; j++) {
        for (let t = 0; t < p; t++) {
          for (let r = 0; r < p; r++) {
            const exponent = (stride * j * t + (size / p) * r * t) % size;
            const angle = (-2 * Math.PI * exponent) / size;
            cos[(j * p + t) * p + r] = Math.cos(angle);
            sin[(j * p + t) * p + r] = Math.sin(angle);
          }
        }
      }
      this.#stages.push({ radix: p, stride, m, cos, sin });
      stride *= p;
    }
    this.#scratchRe = new Float64Array(size);
    this.#scratchIm = new Float64Array(size);
  }

  /** In-place forward transform (e^{-2πi kn/N}) of `re` + i·`im`. */
  transform(re: Float64Array, im: Float64Array): void {
    let srcRe = re;
    let srcIm = im;
    let dstRe = this.#scratchRe;
    let dstIm = this.#scratchIm;
    for (const { radix: p, stride, m, cos, sin } of this.#stages) {
      for (let j = 0; j < m; j++) {
        for (let t = 0; t < p; t++) {
          const twiddles = (j * p + t) * p;
          const out = stride * (p * j + t);
          for (let q = 0; q < stride; q++) {
            let sumRe = 0;
            let sumIm = 0;
            let index = q + stride * j;
            for (let r = 0; r < p; r++, index += stride * m) {
              const xr = srcRe[index]!;
              const xi = srcIm[index]!;
              const c = cos[twiddles + r]!;
              const si = sin[twiddles + r]!;
              sumRe += xr * c - xi * si;
              sumIm += xr * si + xi * c;
            }
            dstRe[out + q] = sumRe;
            dstIm[out + q] = sumIm;
          }
        }
      }
      [srcRe, dstRe] = [dstRe, srcRe];
      [srcIm, dstIm] = [dstIm, srcIm];
    }
    if (srcRe !== re) {
      re.set(srcRe);
      im.set(srcIm);
    }
  }
}

function factorize(n: number): number[] {
  const radices: number[] = [];
  for (const p of [4, 2, 3, 5]) {
    while (n % p === 0) {
      radices.push(p);
      n /= p;
    }
  }
  if (n !== 1) throw new RangeError(`FFT size must factor into 2, 3 and 5; ${n} remains`);
  return radices;
}

/**
 * Spectrum of a real sequence of even length N from one N/2-point complex FFT: pack
 * z[n] = x[2n] + i·x[2n+1], transform, then split the even and odd halves.
 */
export class RealFft {
  readonly size: number;
  readonly #half: ComplexFft;
  readonly #re: Float64Array;
  readonly #im: Float64Array;
  readonly #cos: Float64Array;
  readonly #sin: Float64Array;

  constructor(size: number) {
    if (size % 2 !== 0) throw new RangeError('RealFft size must be even');
    this.size = size;
    const half = size / 2;
    this.#half = new ComplexFft(half);
    this.#re = new Float64Array(half);
    this.#im = new Float64Array(half);
    this.#cos = new Float64Array(half + 1);
    this.#sin = new Float64Array(half + 1);
    for (let k = 0; k <= half; k++) {
      this.#cos[k] = Math.cos((-2 * Math.PI * k) / size);
      this.#sin[k] = Math.sin((-2 * Math.PI * k) / size);
    }
  }

  /** Writes |X[k]|² for k = 0 … N/2 into `power` (length N/2 + 1). */
  powerSpectrum(input: Float64Array, power: Float64Array): void {
    const half = this.size / 2;
    const re = this.#re;
    const im = this.#im;
    for (let n = 0; n < half; n++) {
      re[n] = input[2 * n]!;
      im[n] = input[2 * n + 1]!;
    }
    this.#half.transform(re, im);
    for (let k = 0; k <= half; k++) {
      const a = k % half;
      const b = (half - k) % half;
      // E[k] = (Z[k] + conj Z[N/2-k]) / 2 ; O[k] = (Z[k] - conj Z[N/2-k]) / 2i
      const evenRe = (re[a]! + re[b]!) / 2;
      const evenIm = (im[a]! - im[b]!) / 2;
      const oddRe = (im[a]! + im[b]!) / 2;
      const oddIm = -(re[a]! - re[b]!) / 2;
      // X[k] = E[k] + ω_N^k · O[k]
      const c = this.#cos[k]!;
      const s = this.#sin[k]!;
      const xr = evenRe + oddRe * c - oddIm * s;
      const xi = evenIm + oddRe * s + oddIm * c;
      power[k] = xr * xr + xi * xi;
    }
  }
}
