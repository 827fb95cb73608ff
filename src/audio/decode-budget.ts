/**
 * The limits every decode runs under. The duration limit bounds what a decode keeps; the
 * deadline bounds how long it may keep a worker busy, for input whose size says little about
 * its cost (30 minutes of 384 kHz silence compress into a few MB of FLAC).
 */
import { PayloadTooLargeError } from '../errors.js';

export interface DecodeLimits {
  /** Longer audio is rejected with 413 while decoding. */
  maxSeconds: number;
  /** Wall-clock budget of one decode; past it the decode stops with 413. Default DEFAULT_DECODE_DEADLINE_MS. */
  deadlineMs?: number;
}

/**
 * 90 s. Measured here (2 shared cores): the slowest legitimate uploads, 30 minutes of 48 kHz
 * stereo Ogg Opus (27 MB) and of 44.1 kHz stereo MP3 (18 MB), decode in 12–15 s on an idle
 * machine and about twice that with the other cores busy (the ASR worker also runs at a
 * lowered priority), so 6× headroom. What it stops is input whose cost its size hides:
 * 30 minutes of 384 kHz 8-channel FLAC silence is 6 MB and ~110 s of CPU. Transcribing 30
 * minutes takes far longer than this anyway, so the budget does not limit throughput.
 */
export const DEFAULT_DECODE_DEADLINE_MS = 90_000;

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

/** A decode's deadline, checked between decoder calls (a WASM call itself cannot be interrupted). */
export class DecodeDeadline {
  readonly #deadlineMs: number;
  readonly #endsAt: number;
  readonly #now: () => number;

  constructor(deadlineMs = DEFAULT_DECODE_DEADLINE_MS, now: () => number = () => performance.now()) {
    if (!(deadlineMs > 0)) throw new RangeError(`deadlineMs must be positive (got ${deadlineMs})`);
    this.#deadlineMs = deadlineMs;
    this.#now = now;
    this.#endsAt = now() + deadlineMs;
  }

  check(): void {
    if (this.#now() > this.#endsAt) throw decodeTooSlow(this.#deadlineMs);
  }
}
