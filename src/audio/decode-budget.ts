/**
 * The limits every decode runs under. The duration limit bounds what a decode keeps; the
 * deadline bounds how long it may keep a worker busy, for input whose size says little about
 * its cost (30 minutes of 384 kHz silence compress into a few MB of FLAC). The deadline grows
 * with the audio decoded so far, so an hour of ordinary audio fits while input that costs far
 * more per second of audio than any real recording still stops early. The byte budget ties the
 * audio decoded to the size of the upload, so what a small upload can cost is small too.
 */
import { PayloadTooLargeError } from '../errors.js';

export interface DecodeLimits {
  /** Longer audio is rejected with 413 while decoding. */
  maxSeconds: number;
  /**
   * Wall-clock budget of one decode, plus `deadlineMsPerAudioSecond` for every second of audio
   * decoded so far; past it the decode stops with 413. Default DEFAULT_DECODE_DEADLINE_MS.
   */
  deadlineMs?: number;
  /** Default DECODE_MS_PER_AUDIO_SECOND when `deadlineMs` is the default, else 0 (a fixed deadline). */
  deadlineMsPerAudioSecond?: number;
  /**
   * The size of the upload; the decode stops with 413 once it passes what that many bytes can
   * hold (maxFramesForBytes). decodeAudio sets it from the bytes it is given.
   */
  inputBytes?: number;
}

/**
 * 30 s, plus DECODE_MS_PER_AUDIO_SECOND (40 ms) for each second decoded: 102 s once 30 minutes are
 * decoded, 174 s for 60 minutes. The slowest legitimate uploads (long 48 kHz stereo Ogg Opus or
 * 44.1 kHz stereo MP3) decode several times faster than that, even with the other cores busy (the
 * ASR worker also runs at a lowered priority), at any length. What it stops is input whose cost its
 * size hides: 384 kHz 8-channel FLAC silence costs more CPU per audio second than the budget grows,
 * so it stops early (docs/benchmarks.md, "Audio codecs"). Transcribing the same audio takes far
 * longer than its decode, so the budget does not limit throughput.
 */
export const DEFAULT_DECODE_DEADLINE_MS = 30_000;
export const DECODE_MS_PER_AUDIO_SECOND = 40;

/**
 * Plain PayloadTooLargeErrors (not subclasses) so they keep their class across the worker
 * boundary, where errors are rebuilt from the classes in src/errors.ts.
 */
export function audioTooLong(maxSeconds: number): PayloadTooLargeError {
  // Only speech to text decodes with a limit, which MAX_AUDIO_MINUTES sets.
  return new PayloadTooLargeError(`audio is longer than the limit of ${maxSeconds} seconds (the server's MAX_AUDIO_MINUTES setting raises it)`);
}

/**
 * The byte budget: an upload may decode to at most MAX_FRAMES_PER_INPUT_BYTE frames (samples
 * per channel, at the stream's own rate) for each of its bytes, and to FREE_SECONDS of audio
 * whatever its size.
 *
 * Why: the duration limit and the deadline bound a decode by the audio it yields, and every
 * codec can state audio for next to nothing: a 2-byte Opus packet is 120 ms of concealment, an
 * Ogg packet costs one lacing byte, a FLAC frame of 65,535 samples of silence a dozen bytes, and
 * MP4 tables can point at the same bytes again. A small upload could so claim the full hour and
 * hold a speech worker for as long as decoding an hour takes, with nothing in it to transcribe.
 * Counting frames per byte makes a decode's work proportional to the upload, whatever the codec.
 * A count rather than a deadline scaled by the size: honest near-silent files cost within a
 * small factor of the filler per byte, so a clock tight enough to matter would refuse them
 * whenever the machine is busy, while the count gives the same answer under any load.
 *
 * Why this figure: it sits above the densest coding real encoders write for anything but pure
 * digital silence, and even for that in most settings (libopus, libFLAC, AAC and libvorbis at
 * ordinary quality come out well below it; libvorbis at its lowest quality and FLAC with very
 * long blocks come out above it, so a file of nothing but digital silence from those is refused
 * past FREE_SECONDS). Any sound, a microphone's own noise included, costs far more bytes, so
 * recordings, mostly silent ones included, stay well below it; the filler above packs several
 * times more. Frames rather than samples: a frame's cost grows with the rate (resampling
 * dominates) far more than with the channel count, and a stereo file is as dense as a mono one.
 * What it lets through costs a worker at most a small, fixed time per byte of upload (the
 * figures are in docs/benchmarks.md, "Decode byte budget").
 *
 * FREE_SECONDS lets short clips through at any compression: even at the costliest rate and
 * layout they decode in a fraction of a second.
 */
export const MAX_FRAMES_PER_INPUT_BYTE = 500;
export const FREE_SECONDS = 30;

/** The frames an upload of `inputBytes` may decode to at `sampleRate` (see MAX_FRAMES_PER_INPUT_BYTE). */
export function maxFramesForBytes(inputBytes: number, sampleRate: number): number {
  return Math.max(inputBytes * MAX_FRAMES_PER_INPUT_BYTE, FREE_SECONDS * sampleRate);
}

export function audioTooDense(format: string, inputBytes: number, sampleRate: number): PayloadTooLargeError {
  const seconds = Math.floor(maxFramesForBytes(inputBytes, sampleRate) / sampleRate);
  return new PayloadTooLargeError(
    `the ${format} data decodes to more audio than its ${inputBytes} bytes can honestly hold (over ${seconds} seconds at ${sampleRate} Hz; ` +
      `the limit is ${MAX_FRAMES_PER_INPUT_BYTE} samples per channel per byte, which recordings with any sound in them stay far below)`,
  );
}

function decodeTooSlow(deadlineMs: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`decoding the audio took longer than the limit of ${deadlineMs / 1000} seconds; send shorter audio or a lower sample rate`);
}

/**
 * A decode's deadline, checked between decoder calls (a WASM call itself cannot be interrupted):
 * `deadlineMs` from the start, plus `msPerAudioSecond` for each second of audio decoded so far.
 */
export class DecodeDeadline {
  readonly #deadlineMs: number;
  readonly #msPerAudioSecond: number;
  readonly #startedAt: number;
  readonly #now: () => number;

  constructor(deadlineMs = DEFAULT_DECODE_DEADLINE_MS, now: () => number = () => performance.now(), msPerAudioSecond = 0) {
    if (!(deadlineMs > 0)) throw new RangeError(`deadlineMs must be positive (got ${deadlineMs})`);
    if (!(msPerAudioSecond >= 0)) throw new RangeError(`msPerAudioSecond must not be negative (got ${msPerAudioSecond})`);
    this.#deadlineMs = deadlineMs;
    this.#msPerAudioSecond = msPerAudioSecond;
    this.#now = now;
    this.#startedAt = now();
  }

  /** `audioSeconds`: how much audio has been decoded so far. */
  check(audioSeconds = 0): void {
    const budget = this.#deadlineMs + this.#msPerAudioSecond * audioSeconds;
    if (this.#now() - this.#startedAt > budget) throw decodeTooSlow(Math.round(budget));
  }
}

/** The deadline a decode runs under (see DecodeLimits). */
export function decodeDeadline(limits: DecodeLimits): DecodeDeadline {
  const perSecond = limits.deadlineMsPerAudioSecond ?? (limits.deadlineMs === undefined ? DECODE_MS_PER_AUDIO_SECOND : 0);
  return new DecodeDeadline(limits.deadlineMs, undefined, perSecond);
}
