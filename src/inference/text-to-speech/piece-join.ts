/**
 * How the pieces of a sentence cut in two (splitFirstPiece) are joined again. The voice speaks
 * each piece as an utterance of its own, so two things would otherwise differ from the sentence
 * spoken whole: its level (Piper scales each synthesised piece to full scale, and the two
 * pieces peak differently) and the edges where the pieces meet (the end of one utterance and the
 * start of the next, which need not meet at zero).
 */

/** Fade at each edge where two pieces of one sentence meet, in seconds: long enough to avoid a click, far shorter than a phoneme. */
const JOIN_FADE_SECONDS = 0.004;

/** Below this peak a piece is silence: scaling it up would only raise noise. */
const SILENT_PEAK = 1e-8;

export function peakOf(samples: Float32Array): number {
  let peak = 0;
  for (const sample of samples) peak = Math.max(peak, Math.abs(sample));
  return peak;
}

/**
 * Scales pieces to full scale as Piper does per sentence (VITS output levels vary from one
 * utterance to the next, and MP3 would clip samples past full scale), but gives a piece that continues a cut
 * sentence the gain its first piece had, so the sentence keeps one level (less only if that
 * gain would push the piece past full scale: no piece is ever clipped).
 */
export class SentenceLevel {
  #gain = 1;

  /** Scales `samples` in place and returns them. `continues`: the piece goes on the sentence of the piece before it. */
  apply(samples: Float32Array, continues: boolean): Float32Array {
    const peak = peakOf(samples);
    if (peak < SILENT_PEAK) return samples.fill(0);
    const ownGain = 1 / peak;
    const gain = continues ? Math.min(this.#gain, ownGain) : ownGain;
    if (!continues) this.#gain = gain;
    for (let i = 0; i < samples.length; i++) samples[i] = (samples[i] as number) * gain;
    return samples;
  }
}

/** Fades `samples` in place at the edges where it meets another piece of its sentence: its start (`fadeIn`) and end (`fadeOut`). */
export function fadeJoins(samples: Float32Array, sampleRate: number, edges: { fadeIn: boolean; fadeOut: boolean }): Float32Array {
  const length = Math.min(Math.round(JOIN_FADE_SECONDS * sampleRate), Math.floor(samples.length / 2));
  for (let i = 0; i < length; i++) {
    const weight = (i + 0.5) / length;
    if (edges.fadeIn) samples[i] = (samples[i] as number) * weight;
    if (edges.fadeOut) samples[samples.length - 1 - i] = (samples[samples.length - 1 - i] as number) * weight;
  }
  return samples;
}
