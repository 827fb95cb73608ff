/**
 * Server-side turn detection for live audio (OpenAI's `turn_detection: {"type": "server_vad"}`):
 * turns per-frame speech probabilities into "speech started" and "speech stopped" moments.
 *
 * Speech starts at the first frame at or over `threshold`; it stops once frames under the
 * lower `threshold - 0.15` (the hysteresis Silero's own speech-timestamp code uses) have lasted
 * `silenceDurationMs`. A frame between the two thresholds neither starts nor ends a turn. A turn
 * that reaches `maxTurnMs` is cut there, so one endless speaker still gets transcripts.
 *
 * Times are the stream's (from the session's first audio), given with each push: a detector
 * made anew mid-stream (after a commit, a clear or a session update) reports times that go on.
 */
export interface TurnDetection {
  threshold: number;
  prefixPaddingMs: number;
  silenceDurationMs: number;
}

type TurnEvent = { type: 'speech_started'; atMs: number } | { type: 'speech_stopped'; atMs: number };

export class TurnDetector {
  readonly #settings: TurnDetection;
  readonly #frameMs: number;
  readonly #maxTurnMs: number;
  #speechStartMs: number | undefined;
  #silenceStartMs: number | undefined;

  constructor(settings: TurnDetection, options: { frameMs: number; maxTurnMs: number }) {
    this.#settings = settings;
    this.#frameMs = options.frameMs;
    this.#maxTurnMs = options.maxTurnMs;
  }

  get speaking(): boolean {
    return this.#speechStartMs !== undefined;
  }

  /** The events the next frames' probabilities cause, in order; the first frame starts at `firstFrameMs` of the stream. */
  push(probabilities: ArrayLike<number>, firstFrameMs: number): TurnEvent[] {
    const events: TurnEvent[] = [];
    const { threshold, silenceDurationMs } = this.#settings;
    for (let i = 0; i < probabilities.length; i++) {
      const startMs = firstFrameMs + i * this.#frameMs;
      const endMs = startMs + this.#frameMs;
      const probability = probabilities[i]!;
      if (this.#speechStartMs === undefined) {
        if (probability >= threshold) {
          this.#speechStartMs = startMs;
          this.#silenceStartMs = undefined;
          events.push({ type: 'speech_started', atMs: startMs });
        }
        continue;
      }
      if (probability >= threshold) this.#silenceStartMs = undefined;
      else if (probability < threshold - 0.15) this.#silenceStartMs ??= startMs;
      const silentFor = this.#silenceStartMs === undefined ? 0 : endMs - this.#silenceStartMs;
      if (silentFor >= silenceDurationMs || endMs - this.#speechStartMs >= this.#maxTurnMs) {
        this.#speechStartMs = undefined;
        this.#silenceStartMs = undefined;
        events.push({ type: 'speech_stopped', atMs: endMs });
      }
    }
    return events;
  }
}
