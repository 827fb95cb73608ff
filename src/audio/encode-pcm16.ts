/**
 * Raw PCM output as OpenAI's `response_format: "pcm"` sends it: 16-bit signed little-endian mono
 * at 24 kHz (or a requested rate), no header. Audio at another rate is resampled as it streams, so
 * sentence boundaries leave no seams.
 */
import { PCM16_OUTPUT_RATE } from './codec-sample-rates.js';
import { StreamingResampler } from './streaming-resampler.js';

export class Pcm16StreamEncoder {
  readonly #resampler: StreamingResampler | undefined;

  constructor(inputRate: number, outputRate = PCM16_OUTPUT_RATE) {
    this.#resampler = inputRate === outputRate ? undefined : new StreamingResampler(inputRate, outputRate);
  }

  encode(samples: Float32Array): Uint8Array {
    return toPcm16(this.#resampler ? this.#resampler.push(samples) : samples);
  }

  finish(): Uint8Array {
    return toPcm16(this.#resampler ? this.#resampler.push(new Float32Array(0), true) : new Float32Array(0));
  }
}

function toPcm16(samples: Float32Array): Uint8Array {
  const bytes = new Uint8Array(samples.length * 2);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < samples.length; i++) {
    const clamped = Math.max(-1, Math.min(1, samples[i]!));
    view.setInt16(i * 2, Math.round(clamped < 0 ? clamped * 32768 : clamped * 32767), true);
  }
  return bytes;
}
