/**
 * The limits every decode runs under. The duration limit bounds what a decode keeps; the
 * deadline bounds how long it may keep a worker busy, for input whose size says little about
 * its cost (30 minutes of 384 kHz silence compress into a few MB of FLAC). The deadline grows
 * with the audio decoded so far, so an hour of ordinary audio fits while input that costs far
 * more per second of audio than any real recording still stops early.
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
}

/**
 * 30 s, plus DECODE_MS_PER_AUDIO_SECOND (40 ms) for each second decoded: 102 s once 30 minutes
 * are decoded, 174 s for 60 minutes. Measured here (2 shared cores): the slowest legitimate
 * uploads, 30 minutes of 48 kHz stereo Ogg Opus (27 MB) and of 44.1 kHz stereo MP3 (18 MB),
 * decode in 12–15 s on an idle machine (7–8 ms per audio second) and about twice that with the
 * other cores busy (the ASR worker also runs at a lowered priority), so 3–6× headroom at any
 * length. What it stops is input whose cost its size hides: 384 kHz 8-channel FLAC silence
 * costs ~61 ms of CPU per audio second (6 MB and ~110 s for 30 minutes), more than the budget
 * grows, so it stops after ~90 s. Transcribing the same audio takes far longer than its
 * decode, so the budget does not limit throughput.
 */
export const DEFAULT_DECODE_DEADLINE_MS = 30_000;
export const DECODE_MS_PER_AUDIO_SECOND = 40;

/**
 * Plain PayloadTooLargeErrors (not subclasses) so they keep their class across the worker
 * boundary, where errors are rebuilt from the classes in src/errors.ts.
 */
export function audioTooLong(maxSeconds: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`audio is longer than the limit of ${maxSeconds} seconds`);
}

export function decodeTooSlow(deadlineMs: number): PayloadTooLargeError {
  return new PayloadTooLargeError(
    `decoding the audio took longer than the limit of ${deadlineMs / 1000} seconds; send shorter audio or a lower sample rate`,
  );
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
