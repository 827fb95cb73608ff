/**
 * The sample rates each codec can carry, with no codec import (cheap to read anywhere: the
 * route validates `sample_rate` with these, the encoder worker encodes with them).
 */
import { MP3_SAMPLE_RATES } from './mp3-sample-rates.js';

/** The rates libopus encodes at; decoders always play Opus at 48 kHz. */
export const OPUS_SAMPLE_RATES = Object.freeze([8000, 12000, 16000, 24000, 48000] as const);

/** AAC sampling frequencies by index (ISO/IEC 14496-3 Table 1.18); index 15 means a 24-bit rate follows. */
export const AAC_SAMPLE_RATES = Object.freeze([96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350] as const);

/** Raw PCM answers default to 24 kHz, as OpenAI's `pcm`. */
export const PCM16_OUTPUT_RATE = 24_000;

type EncodedFormat = 'mp3' | 'wav' | 'pcm' | 'opus' | 'flac' | 'aac';

/**
 * The output rates a client may ask for, per format: MP3's nine (which WAV, PCM, FLAC and AAC
 * all carry too), and Opus's five.
 */
export const OUTPUT_SAMPLE_RATES: Readonly<Record<EncodedFormat, readonly number[]>> = Object.freeze({
  mp3: MP3_SAMPLE_RATES,
  wav: MP3_SAMPLE_RATES,
  pcm: MP3_SAMPLE_RATES,
  flac: MP3_SAMPLE_RATES,
  aac: MP3_SAMPLE_RATES,
  opus: OPUS_SAMPLE_RATES,
});

/**
 * The rate an answer is encoded at: the requested one, else the voice's own where the format
 * carries it; PCM is 24 kHz like OpenAI's, and a voice rate Opus cannot carry (Piper's
 * 22.05 kHz) becomes 24 kHz, which keeps all of its band.
 */
export function outputSampleRate(format: EncodedFormat, voiceRate: number, requested?: number): number {
  if (requested !== undefined) return requested;
  if (format === 'pcm') return PCM16_OUTPUT_RATE;
  return OUTPUT_SAMPLE_RATES[format].includes(voiceRate) ? voiceRate : 24_000;
}
