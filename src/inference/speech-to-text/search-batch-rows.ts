/**
 * The key/value cache of several windows' searches stepping together (search-steps-together.ts):
 * one batch whose rows are the windows' beams or samples, window after window. Between steps each
 * window's rows are reordered, grown or shrunk to its search's sources, and a window that has
 * ended loses its rows.
 *
 * A lone window's search gives the decoder one row of audio and cross-attention cache for all its
 * beams (the attention broadcasts it); rows of several windows cannot share a row that way, so
 * here every row holds a copy of its window's. That copy is made only when a window's row count
 * changes (its first step grows one row to the beams; a window leaving shifts the later ones),
 * not at every step.
 */
import { gatherRows } from './cache-rows.js';
import type { GroupStep } from './search-steps-together.js';

/** An onnxruntime-node tensor, as the sessions take and give them. */
interface OrtTensor {
  type: string;
  data: unknown;
  dims: readonly number[];
}

/** The decoder's `past_key_values.*` inputs, by name. */
type Cache = Record<string, OrtTensor>;

/** What the next decoder run reads. */
export interface BatchStepInput {
  /** One token per row. */
  tokens: number[];
  past: Cache;
  audio: OrtTensor;
}

export class SearchBatchRows {
  /** Rows per window in the current cache, window after window. */
  #counts: number[];
  /** The self-attention cache (`.decoder`), one row per live beam or sample. */
  #decoder: Cache = {};
  /** The cross-attention cache (`.encoder`), each row a copy of its window's. */
  #encoder: Cache = {};
  /** The windows' audio, rows as the cross-attention cache's. */
  #audio: OrtTensor;

  /** `cache` and `audio`: after the windows' start tokens, one row per window (taken over: not to be read afterwards). */
  constructor(cache: Cache, audio: OrtTensor) {
    this.#audio = audio;
    this.#counts = new Array(audio.dims[0]!).fill(1);
    this.#keep(cache, true);
  }

  /** Rows each window has now. */
  get counts(): readonly number[] {
    return this.#counts;
  }

  /** Moves the rows to `steps` (undefined: that window has left) and gives the run's input. */
  next(steps: readonly (GroupStep | undefined)[]): BatchStepInput {
    const selfSources: number[] = [];
    const crossSources: number[] = [];
    const tokens: number[] = [];
    const counts: number[] = [];
    let offset = 0;
    steps.forEach((step, group) => {
      const had = this.#counts[group]!;
      const rows = step?.sources.length ?? 0;
      for (const source of step?.sources ?? []) selfSources.push(offset + source);
      // Any row of the window will do: the nearest keeps most rows where they are.
      for (let row = 0; row < rows; row++) crossSources.push(offset + Math.min(row, had - 1));
      tokens.push(...(step?.tokens ?? []));
      counts.push(rows);
      offset += had;
    });
    const layoutChanged = counts.some((count, group) => count !== this.#counts[group]);
    this.#counts = counts;
    for (const [name, tensor] of Object.entries(this.#decoder)) this.#decoder[name] = gatherRows(tensor, selfSources);
    if (layoutChanged) {
      for (const [name, tensor] of Object.entries(this.#encoder)) this.#encoder[name] = gatherRows(tensor, crossSources);
      this.#audio = gatherRows(this.#audio, crossSources);
    }
    // The decoder's outputs replace these rows (keep): the batch holds them once.
    const past = { ...this.#decoder, ...this.#encoder };
    this.#decoder = {};
    return { tokens, past, audio: this.#audio };
  }

  /** The cache a run returned: its grown self-attention rows replace the old ones. */
  keep(cache: Cache): void {
    this.#keep(cache, false);
  }

  /** Each window's rows of a run's logits [rows, 1, vocab] (undefined for a window without rows). */
  split(logits: OrtTensor): (Float32Array[] | undefined)[] {
    const data = logits.data as Float32Array;
    const vocab = logits.dims[2]!;
    let row = 0;
    return this.#counts.map((count) => {
      if (count === 0) return undefined;
      const rows = Array.from({ length: count }, (_, index) => data.subarray((row + index) * vocab, (row + index + 1) * vocab));
      row += count;
      return rows;
    });
  }

  #keep(cache: Cache, withEncoder: boolean): void {
    for (const [name, tensor] of Object.entries(cache)) {
      if (!name.includes('encoder')) this.#decoder[name] = tensor;
      else if (withEncoder) this.#encoder[name] = tensor;
    }
  }
}
