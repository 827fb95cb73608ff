/**
 * Whisper's log-mel input features, computed the way transformers.js's WhisperFeatureExtractor
 * does (centered STFT with reflect padding, periodic Hann window, power spectrum, the
 * extractor's own mel filters, log10, max−8 floor, (x+4)/4), but several times faster
 * (docs/benchmarks.md, "Speech to text"):
 * - one half-size complex FFT per frame instead of three 1024-point Bluestein FFTs;
 * - the mel filters are triangles over a few bins each, so only their non-zero span is summed
 *   (transformers.js multiplies the dense mel×201 matrix, 80 or 128 rows, through an onnxruntime session);
 * - frames that lie wholly in the zero padding after short audio are known to be zero.
 * The features are the model input, so this is checked against transformers.js in tests.
 */
import { RealFft } from './fft.js';

export interface WhisperFeatureConfig {
  n_fft: number;
  hop_length: number;
  /** [melBins][n_fft/2 + 1], as transformers.js stores them. */
  mel_filters: number[][];
  nb_max_frames: number;
}

interface LogMelFeatures {
  /** Row-major [melBins × frames]. */
  data: Float32Array;
  melBins: number;
  frames: number;
}

const MEL_FLOOR = 1e-10;

interface SparseFilter {
  first: number;
  weights: Float64Array;
}

export class WhisperLogMel {
  readonly #nFft: number;
  readonly #hop: number;
  readonly #maxFrames: number;
  readonly #fft: RealFft;
  readonly #window: Float64Array;
  readonly #filters: SparseFilter[];

  constructor(config: WhisperFeatureConfig) {
    this.#nFft = config.n_fft;
    this.#hop = config.hop_length;
    this.#maxFrames = config.nb_max_frames;
    this.#fft = new RealFft(config.n_fft);
    // Periodic Hann: numpy.hanning(n + 1)[:-1].
    this.#window = Float64Array.from({ length: config.n_fft }, (_, n) => 0.5 - 0.5 * Math.cos((2 * Math.PI * n) / config.n_fft));
    this.#filters = config.mel_filters.map(toSparse);
  }

  /** True when `config` has the shape this class expects (else use the library's extractor). */
  static supports(config: Partial<WhisperFeatureConfig>): config is WhisperFeatureConfig {
    const bins = typeof config.n_fft === 'number' ? config.n_fft / 2 + 1 : NaN;
    return (
      Number.isInteger(bins) &&
      config.n_fft! % 4 === 0 &&
      typeof config.hop_length === 'number' &&
      typeof config.nb_max_frames === 'number' &&
      Array.isArray(config.mel_filters) &&
      config.mel_filters.length > 0 &&
      config.mel_filters.every((row) => Array.isArray(row) && row.length === bins)
    );
  }

  /** `waveform` is already cut or zero-padded to the model window (30 s), as the extractor does. */
  extract(waveform: Float32Array | Float64Array): LogMelFeatures {
    const pad = this.#nFft / 2;
    const padded = reflectPad(waveform, pad);
    const frames = Math.min(Math.floor(waveform.length / this.#hop), this.#maxFrames);
    const melBins = this.#filters.length;
    const data = new Float32Array(melBins * frames);
    const lastNonZero = lastNonZeroIndex(padded);
    const frame = new Float64Array(this.#nFft);
    const power = new Float64Array(this.#nFft / 2 + 1);
    let logMax = -Infinity;

    for (let f = 0; f < frames; f++) {
      const offset = f * this.#hop;
      if (offset > lastNonZero) {
        // Only padding from here on: every mel energy is the floor.
        const silent = Math.log10(MEL_FLOOR);
        for (let m = 0; m < melBins; m++) data[m * frames + f] = silent;
        logMax = Math.max(logMax, silent);
        continue;
      }
      for (let n = 0; n < this.#nFft; n++) frame[n] = (padded[offset + n] ?? 0) * this.#window[n]!;
      this.#fft.powerSpectrum(frame, power);
      for (let m = 0; m < melBins; m++) {
        const { first, weights } = this.#filters[m]!;
        let energy = 0;
        for (let k = 0; k < weights.length; k++) energy += weights[k]! * power[first + k]!;
        const value = Math.log10(Math.max(MEL_FLOOR, energy));
        data[m * frames + f] = value;
        if (value > logMax) logMax = value;
      }
    }

    // Dynamic range of 80 dB below the loudest bin, then scaled to about [-1, 1].
    const floor = logMax - 8;
    for (let i = 0; i < data.length; i++) data[i] = (Math.max(data[i]!, floor) + 4) / 4;
    return { data, melBins, frames };
  }
}

function toSparse(row: number[]): SparseFilter {
  let first = row.findIndex((weight) => weight !== 0);
  if (first < 0) first = 0;
  let last = row.length - 1;
  while (last > first && row[last] === 0) last--;
  return { first, weights: Float64Array.from(row.slice(first, last + 1)) };
}

/** numpy "reflect" padding (the edge sample is not repeated). */
function reflectPad(waveform: Float32Array | Float64Array, pad: number): Float64Array {
  const length = waveform.length;
  const padded = new Float64Array(length + 2 * pad);
  padded.set(waveform, pad);
  for (let i = 1; i <= pad; i++) {
    padded[pad - i] = waveform[Math.min(i, length - 1)] ?? 0;
    padded[pad + length - 1 + i] = waveform[Math.max(length - 1 - i, 0)] ?? 0;
  }
  return padded;
}

function lastNonZeroIndex(samples: Float64Array): number {
  for (let i = samples.length - 1; i >= 0; i--) if (samples[i] !== 0) return i;
  return -1;
}
