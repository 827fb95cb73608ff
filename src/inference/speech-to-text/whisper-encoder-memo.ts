/**
 * The Whisper encoder session behind a memo of its last one-window run. Language identification
 * encodes the first window (whisper-language-id.ts), and the decode that follows encodes the same
 * window again: transformers.js's generate() and our window decoder each run the encoder
 * themselves. The same features give the same output, so the second run is answered from the
 * memo: a multilingual request without a language pays one encoder run per window, not two
 * (docs/benchmarks.md, "Speech to text").
 *
 * One entry, compared by value (a window's features are 80 × 3000 floats: far cheaper to compare
 * than to encode). The input is copied, since a run may move its buffers to the encoder's thread.
 * The worker forgets it when a request ends: a request never gains from an earlier one's audio
 * (a benchmark that sends one clip again and again would otherwise measure the memo).
 */
import type { OrtTensor } from '../ort-tensor.js';
import { modelWithSessions, rebuiltAsrPipeline, type AsrPipelineParts } from './whisper-pipeline.js';

/** What transformers.js and our window decoder call on an encoder session. */
interface EncoderSession {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  run(feeds: Record<string, OrtTensor>, fetches?: unknown, options?: unknown): Promise<Record<string, OrtTensor>>;
  release?(): Promise<void>;
}

const FEATURES = 'input_features';

export class EncoderMemo implements EncoderSession {
  readonly #session: EncoderSession;
  #last: { features: Float32Array; outputs: Record<string, OrtTensor> } | undefined;
  /** Runs answered from the memo, for tests and the bench. */
  hits = 0;

  constructor(session: EncoderSession) {
    this.#session = session;
  }

  get inputNames(): readonly string[] {
    return this.#session.inputNames;
  }

  get outputNames(): readonly string[] {
    return this.#session.outputNames;
  }

  async run(feeds: Record<string, OrtTensor>, fetches?: unknown, options?: unknown): Promise<Record<string, OrtTensor>> {
    const features = oneWindow(feeds);
    if (!features || fetches !== undefined) return this.#session.run(feeds, fetches, options);
    const last = this.#last;
    if (last && sameFloats(last.features, features) && intact(last.outputs)) {
      this.hits++;
      return { ...last.outputs };
    }
    const copy = features.slice();
    const outputs = await (options === undefined ? this.#session.run(feeds) : this.#session.run(feeds, undefined, options));
    this.#last = { features: copy, outputs };
    return { ...outputs };
  }

  /** Lets the last run's features and output go. */
  forget(): void {
    this.#last = undefined;
  }

  async release(): Promise<void> {
    this.forget();
    await this.#session.release?.();
  }
}

/** `asr` with its encoder session (`sessions.model`) behind an EncoderMemo, and the memo; `asr` itself when it has none. */
export function withEncoderMemo<P extends AsrPipelineParts>(asr: P): { asr: P; memo?: EncoderMemo } {
  const session = asr.model.sessions.model as EncoderSession | undefined;
  if (!session) return { asr };
  const memo = new EncoderMemo(session);
  return { asr: rebuiltAsrPipeline(asr, { model: modelWithSessions(asr.model, { ...asr.model.sessions, model: memo }) }), memo };
}

/** The features of a one-window run (batch 1, float32), else undefined: batches go straight to the session. */
function oneWindow(feeds: Record<string, OrtTensor>): Float32Array | undefined {
  const names = Object.keys(feeds);
  const tensor = feeds[FEATURES];
  if (names.length !== 1 || !tensor || tensor.dims[0] !== 1 || !(tensor.data instanceof Float32Array)) return undefined;
  return tensor.data;
}

function sameFloats(a: Float32Array, b: Float32Array): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}

/** Whether no output was disposed (its data then throws) or moved to another thread (it reads as empty) since. */
function intact(outputs: Record<string, OrtTensor>): boolean {
  try {
    return Object.values(outputs).every((tensor) => (tensor.data as ArrayBufferView).byteLength > 0);
  } catch {
    return false;
  }
}
