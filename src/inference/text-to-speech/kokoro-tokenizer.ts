/**
 * Kokoro's tokenizer.json (the hub repo's): one id per phoneme character, characters outside the
 * vocabulary dropped, and the pad `$` (id 0) at both ends, as transformers.js tokenises for kokoro-js
 * and as hexgrad's KModel builds `[0, *ids, 0]`. Also how ids and voice rows are cut to the
 * model's context.
 */

/** Phoneme ids one run takes, between its two pads: the model's 512 positions, less the pads. */
export const MAX_PHONEME_IDS = 510;

class KokoroTokenizerError extends Error {
  override name = 'KokoroTokenizerError';
}

export class KokoroTokenizer {
  readonly #vocab: ReadonlyMap<string, number>;
  readonly padId: number;

  private constructor(vocab: ReadonlyMap<string, number>, padId: number) {
    this.#vocab = vocab;
    this.padId = padId;
  }

  static parse(raw: unknown, origin = 'tokenizer.json'): KokoroTokenizer {
    const json = raw as { model?: { vocab?: Record<string, unknown> }; post_processor?: { special_tokens?: Record<string, { ids?: unknown }> } };
    const entries = Object.entries(json?.model?.vocab ?? {});
    if (entries.length === 0) throw new KokoroTokenizerError(`${origin}: model.vocab is missing or empty`);
    const vocab = new Map<string, number>();
    for (const [symbol, id] of entries) {
      if (!Number.isInteger(id) || (id as number) < 0) throw new KokoroTokenizerError(`${origin}: model.vocab["${symbol}"] must be an id`);
      vocab.set(symbol, id as number);
    }
    const special = json.post_processor?.special_tokens?.$?.ids;
    const padId = Array.isArray(special) && Number.isInteger(special[0]) ? (special[0] as number) : vocab.get('$');
    if (padId === undefined) throw new KokoroTokenizerError(`${origin}: no pad token "$"`);
    return new KokoroTokenizer(vocab, padId);
  }

  /** `[pad, …one id per known phoneme character…, pad]`. */
  ids(phonemes: string): number[] {
    const ids = [this.padId];
    for (const symbol of phonemes) {
      const id = this.#vocab.get(symbol);
      if (id !== undefined && id !== this.padId) ids.push(id);
    }
    ids.push(this.padId);
    return ids;
  }

  /** The id of a symbol (tests, chunking). */
  id(symbol: string): number | undefined {
    return this.#vocab.get(symbol);
  }
}

/**
 * Splits padded ids longer than the context into padded runs of at most `max` phoneme ids each,
 * cut after the last pause in reach (`breaks`: ids of punctuation, then of the space), else hard.
 */
export function chunkPhonemeIds(
  padded: readonly number[],
  breaks: { clause: ReadonlySet<number>; word: ReadonlySet<number> },
  max = MAX_PHONEME_IDS,
): number[][] {
  const pad = padded[0] as number;
  let rest = padded.slice(1, -1);
  const chunks: number[][] = [];
  while (rest.length > max) {
    const lastOf = (set: ReadonlySet<number>) => {
      for (let index = max - 1; index >= 0; index--) if (set.has(rest[index] as number)) return index;
      return -1;
    };
    const clause = lastOf(breaks.clause);
    const word = lastOf(breaks.word);
    const cut = clause > max / 3 ? clause + 1 : word > max / 3 ? word + 1 : max;
    chunks.push([pad, ...rest.slice(0, cut), pad]);
    rest = rest.slice(cut);
  }
  if (rest.length > 0) chunks.push([pad, ...rest, pad]);
  return chunks;
}

/**
 * The style vector for a run: a voice file holds one 256-float row per phoneme count (510 rows),
 * and a run of n phoneme ids takes row n − 1, as hexgrad's kokoro does (`pack[len(ps) - 1]`) and
 * kokoro-onnx. (kokoro-js takes row n.)
 */
export function styleRow(voice: Float32Array, phonemeIds: number, width = 256): Float32Array {
  const rows = Math.floor(voice.length / width);
  const row = Math.min(Math.max(phonemeIds, 1), rows) - 1;
  return voice.subarray(row * width, (row + 1) * width);
}
