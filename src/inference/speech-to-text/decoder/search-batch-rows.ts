/**
 * The key/value cache of several windows' searches stepping together (search-steps-together.ts),
 * on a decoder whose cross-attention is grouped by window (grouped-cross-attention.ts): the
 * self-attention rows are the windows' beams or samples, window after window, and the audio and
 * cross-attention cache hold one row per window, which the decoder shares among that window's
 * rows as a lone search's beams share theirs. The grouping asks for the same number of rows in
 * every window, so a window with fewer (a best-of whose samples ended, a beam search short of
 * candidates) is padded with copies of its first row, whose logits nobody reads.
 *
 * Between steps each window's rows are reordered, grown or shrunk to its search's sources, and a
 * window that has ended loses its rows, cross-attention row included.
 */
import { gatherRows } from './cache-rows.js';
import type { GroupStep } from './search-steps-together.js';
import type { SelfAttentionRows } from './self-attention-rows.js';
import type { OrtTensor } from '../../ort-tensor.js';
import type { Cache } from './decoder-passes.js';

/** What the next decoder run reads. */
export interface BatchStepInput {
  /** One token per row. */
  tokens: number[];
  /** The rows already moved to the steps: the run reads them all, and its outputs update them. */
  past: { encoder: Cache; selfAttention: SelfAttentionRows };
  audio: OrtTensor;
}

export class SearchBatchRows {
  /** Rows each window holds in the self-attention cache (padding included), window after window; 0 once it has left. */
  #held: number[];
  /** Of those, the rows its search asked for (the rest is padding). */
  #asked: number[];
  /** The windows that still hold a row of audio and cross-attention cache, in order. */
  #crossWindows: number[];
  /** The self-attention cache (`.decoder`). */
  readonly #selfAttention: SelfAttentionRows;
  /** The cross-attention cache (`.encoder`), one row per window in #crossWindows. */
  #encoder: Cache;
  #audio: OrtTensor;

  /** `cache` and `audio`: after the windows' start tokens, one row per window (taken over: not to be read afterwards). */
  constructor(cache: { encoder: Cache; selfAttention: SelfAttentionRows }, audio: OrtTensor) {
    const windows = audio.dims[0]!;
    this.#audio = audio;
    this.#held = new Array(windows).fill(1);
    this.#asked = this.#held.slice();
    this.#crossWindows = Array.from({ length: windows }, (_, window) => window);
    this.#encoder = { ...cache.encoder };
    this.#selfAttention = cache.selfAttention;
  }

  /** Moves the rows to `steps` (undefined: that window has left) and gives the run's input. */
  next(steps: readonly (GroupStep | undefined)[]): BatchStepInput {
    const rowsPerWindow = Math.max(...steps.map((step) => step?.sources.length ?? 0));
    const sources: number[] = [];
    const tokens: number[] = [];
    let offset = 0;
    steps.forEach((step, window) => {
      const rows = step ? rowsPerWindow : 0;
      for (let row = 0; row < rows; row++) {
        // Padding reads the window's first row again.
        const at = row < step!.sources.length ? row : 0;
        sources.push(offset + step!.sources[at]!);
        tokens.push(step!.tokens[at]!);
      }
      offset += this.#held[window]!;
      this.#held[window] = rows;
      this.#asked[window] = step?.sources.length ?? 0;
    });
    this.#selfAttention.past(sources);
    const stepping = this.#crossWindows.filter((window) => steps[window] !== undefined);
    if (stepping.length < this.#crossWindows.length) {
      const kept = stepping.map((window) => this.#crossWindows.indexOf(window));
      for (const [name, tensor] of Object.entries(this.#encoder)) this.#encoder[name] = gatherRows(tensor, kept);
      this.#audio = gatherRows(this.#audio, kept);
      this.#crossWindows = stepping;
    }
    return { tokens, past: { encoder: this.#encoder, selfAttention: this.#selfAttention }, audio: this.#audio };
  }

  /** Each window's asked rows of a run's logits [rows, 1, vocab] (undefined for a window without rows). */
  split(logits: OrtTensor): (Float32Array[] | undefined)[] {
    const data = logits.data as Float32Array;
    const vocab = logits.dims[2]!;
    let row = 0;
    return this.#held.map((held, window) => {
      const first = row;
      row += held;
      if (held === 0) return undefined;
      return Array.from({ length: this.#asked[window]! }, (_, index) => data.subarray((first + index) * vocab, (first + index + 1) * vocab));
    });
  }
}
