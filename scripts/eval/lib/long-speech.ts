/**
 * Long test audio built from the shared English speech clips: the clips decoded to 16-kHz mono,
 * in file order, repeated until the target length, with a fixed silence between consecutive
 * clips. Nothing is written to disk; the joined reference is the clips' references in the
 * same order. Used by the long-form tests and by scripts/bench/long-speech.ts.
 */
import { decodeAudio } from '../../../src/audio/decode-audio.js';
import { resample } from '../../../src/audio/resample.js';
import type { SpeechClip } from './speech-clips.js';
import { seededRandom } from '../../../src/inference/speech-to-text/decoding/whisper-token-choice.js';

export const LONG_SPEECH_RATE = 16_000;

export interface PlacedClip {
  file: string;
  reference: string;
  /** Seconds from the start of the long audio. */
  start: number;
  end: number;
  /** The factor its samples were scaled by (variedSpeech only). */
  gain?: number;
}

export interface LongSpeech {
  samples: Float32Array;
  sampleRate: number;
  clips: PlacedClip[];
  /** All references, in order, space-separated. */
  reference: string;
}

export interface LongSpeechOptions {
  /** Stop adding clips once the audio is at least this long. */
  targetSeconds: number;
  /** Silence between clips. */
  gapSeconds: number;
}

/** Decodes each clip once; `clips` as readSpeechClips returns them (duplicates such as en_jfk.mp3 are skipped). */
export async function decodeClipsOnce(clips: readonly SpeechClip[]): Promise<Array<{ file: string; reference: string; samples: Float32Array }>> {
  const seen = new Set<string>();
  const decoded: Array<{ file: string; reference: string; samples: Float32Array }> = [];
  for (const clip of clips) {
    const stem = clip.file.replace(/\.[^.]+$/, '');
    if (seen.has(stem)) continue;
    seen.add(stem);
    const samples = clip.pcm
      ? resample(clip.pcm.samples, clip.pcm.sampleRate, LONG_SPEECH_RATE)
      : (await decodeAudio(clip.bytes!, { maxSeconds: 600, sampleRate: LONG_SPEECH_RATE })).samples;
    decoded.push({ file: clip.file, reference: clip.reference, samples });
  }
  return decoded;
}

export function joinClips(decoded: ReadonlyArray<{ file: string; reference: string; samples: Float32Array }>, options: LongSpeechOptions): LongSpeech {
  if (decoded.length === 0) throw new Error('no clips to join');
  const gap = Math.round(options.gapSeconds * LONG_SPEECH_RATE);
  const target = options.targetSeconds * LONG_SPEECH_RATE;
  const order: (typeof decoded)[number][] = [];
  let length = 0;
  for (let index = 0; length < target; index++) {
    const clip = decoded[index % decoded.length]!;
    length += (order.length > 0 ? gap : 0) + clip.samples.length;
    order.push(clip);
  }
  const samples = new Float32Array(length);
  const clips: PlacedClip[] = [];
  let offset = 0;
  for (const clip of order) {
    if (clips.length > 0) offset += gap;
    samples.set(clip.samples, offset);
    clips.push({ file: clip.file, reference: clip.reference, start: offset / LONG_SPEECH_RATE, end: (offset + clip.samples.length) / LONG_SPEECH_RATE });
    offset += clip.samples.length;
  }
  return { samples, sampleRate: LONG_SPEECH_RATE, clips, reference: order.map((clip) => clip.reference).join(' ') };
}

export interface VariedSpeechOptions {
  /** Stop adding clips once the audio is at least this long. */
  targetSeconds: number;
  /** Each pause between clips is drawn from [min, max] seconds of digital silence. */
  gapSeconds: readonly [number, number];
  /** The share of clips made quieter, each by a level drawn from [min, max] dB. */
  quietShare: number;
  quietDb: readonly [number, number];
  seed: number;
  /**
   * Bring every clip to this RMS first (absent: as recorded). Some shared clips are recorded
   * near −63 dBFS, so 20–30 dB below that is under 16-bit resolution (a speaker no recording
   * has); leveled first, a quiet clip is 20–30 dB below the others, as in a meeting.
   */
  clipRms?: number;
}

/**
 * Long audio as a meeting sounds: the clips in an order shuffled by `seed` (each clip once per
 * round, rounds repeated until the target length), pauses of varied length, and some speakers
 * quieter than the others. The reference is the clips' references in the order placed.
 */
export function variedSpeech(decoded: ReadonlyArray<{ file: string; reference: string; samples: Float32Array }>, options: VariedSpeechOptions): LongSpeech {
  if (decoded.length === 0) throw new Error('no clips to join');
  const random = seededRandom(options.seed);
  const between = ([min, max]: readonly [number, number]) => min + (max - min) * random();
  const placed: Array<{ clip: (typeof decoded)[number]; gap: number; gain: number }> = [];
  let length = 0;
  while (length < options.targetSeconds * LONG_SPEECH_RATE) {
    const round = [...decoded];
    for (let i = round.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [round[i], round[j]] = [round[j]!, round[i]!];
    }
    for (const clip of round) {
      const gap = placed.length > 0 ? Math.round(between(options.gapSeconds) * LONG_SPEECH_RATE) : 0;
      const quiet = random() < options.quietShare ? 10 ** (-between(options.quietDb) / 20) : 1;
      const gain = options.clipRms === undefined ? quiet : (quiet * options.clipRms) / rms(clip.samples);
      placed.push({ clip, gap, gain });
      length += gap + clip.samples.length;
    }
  }
  const samples = new Float32Array(length);
  const clips: PlacedClip[] = [];
  let offset = 0;
  for (const { clip, gap, gain } of placed) {
    offset += gap;
    for (let i = 0; i < clip.samples.length; i++) samples[offset + i] = clip.samples[i]! * gain;
    clips.push({ file: clip.file, reference: clip.reference, start: offset / LONG_SPEECH_RATE, end: (offset + clip.samples.length) / LONG_SPEECH_RATE, gain });
    offset += clip.samples.length;
  }
  return { samples, sampleRate: LONG_SPEECH_RATE, clips, reference: placed.map(({ clip }) => clip.reference).join(' ') };
}

function rms(samples: Float32Array): number {
  let sum = 0;
  for (const x of samples) sum += x * x;
  return Math.sqrt(sum / Math.max(1, samples.length)) || 1;
}
