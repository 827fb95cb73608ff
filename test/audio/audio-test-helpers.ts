/** Shared helpers for codec tests: where the real clips live and simple signal measurements. */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Real speech clips shared by the team; read in place, never copied into the repo. */
export const SPEECH_DIR = resolve(REPO_ROOT, '../shared/eval/speech');
export const AUDIO_FIXTURES = resolve(REPO_ROOT, 'test/fixtures/audio');

/** Frequency estimated from rising zero crossings (good enough for a pure tone). */
export function dominantFrequency(samples: Float32Array, sampleRate: number): number {
  let crossings = 0;
  for (let i = 1; i < samples.length; i++) if (samples[i - 1]! < 0 && samples[i]! >= 0) crossings++;
  return (crossings * sampleRate) / samples.length;
}

export function rms(samples: Float32Array, from = 0, to = samples.length): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += samples[i]! ** 2;
  return Math.sqrt(sum / Math.max(1, to - from));
}

export function sine(frequency: number, sampleRate: number, seconds: number, amplitude = 0.5): Float32Array {
  const out = new Float32Array(Math.round(sampleRate * seconds));
  for (let i = 0; i < out.length; i++) out[i] = amplitude * Math.sin((2 * Math.PI * frequency * i) / sampleRate);
  return out;
}
