/**
 * How much one model run may speak. A run's memory grows with the audio it makes (the VITS and
 * iSTFTNet decoders hold several tensors per output sample), and what a text makes is not
 * bounded by its characters: digits and symbols expand ("1%" is "one percent"), and `speed`
 * 0.25 makes every phoneme four times longer. So after phonemisation, each sentence is cut into
 * pieces of at most `piecePhonemeLimit(speed)` phonemes: after a clause mark where there is one,
 * else between words (the piece then ends with a comma, spoken as a clause, as splitFirstPiece's
 * first piece is), else, for a word longer than a piece, between phonemes. The pieces of a
 * sentence are joined at one level with short fades (piece-join.ts). The limit and the memory
 * it bounds are measured in docs/benchmarks.md ("Text to speech").
 */

/**
 * Phonemes in a piece at speed 1 and above: 6.6–12.9 s of Piper audio, the most for pauses
 * ("so; so; …"). Slower speeds get proportionally fewer, so a piece holds no more seconds of audio.
 */
export const PIECE_PHONEMES = 200;

/** Clause marks as espeak-phonemes.ts writes them into the phonemes (Kokoro's also has the dash). */
const CLAUSE_MARK = /[,;:.!?—…]/u;

/** Phonemes a piece may hold at `speed` (1: the voice's own pace; 0.25 is four times slower). */
export function piecePhonemeLimit(speed = 1, phonemes = PIECE_PHONEMES): number {
  return Math.max(1, Math.floor(phonemes * Math.min(1, speed)));
}

/**
 * How many phonemes a string is to the model: code points after NFD, as Piper's ids are made
 * (piper-phoneme-ids.ts); Kokoro's tokenizer takes one per code point, never more.
 */
export function phonemeCount(phonemes: string): number {
  let count = 0;
  for (const symbol of phonemes) count += weight(symbol);
  return count;
}

/** `phonemes` (one sentence's, words separated by spaces) cut into pieces of at most `limit` phonemes each, as described above. */
export function splitPhonemes(phonemes: string, limit: number): string[] {
  const symbols = [...phonemes.trim()];
  const pieces: string[] = [];
  let start = 0;
  while (countOf(symbols, start, symbols.length) > limit) {
    // The furthest end that fits, leaving room for a comma.
    let end = start;
    for (let count = 0; end < symbols.length && count + weight(symbols[end] as string) <= limit - 1; end++) count += weight(symbols[end] as string);
    const space = lastIndexIn(symbols, ' ', start, end + 1);
    const clause = lastSpaceAfterClause(symbols, start, end + 1);
    const farEnough = (index: number) => index - start >= (end - start) / 3;
    if (clause >= 0 && farEnough(clause)) {
      pieces.push(symbols.slice(start, clause).join(''));
      start = clause + 1;
    } else if (space >= 0 && farEnough(space)) {
      pieces.push(`${symbols.slice(start, space).join('')},`);
      start = space + 1;
    } else {
      // One word longer than a piece: cut between phonemes, never before a combining mark.
      let cut = Math.max(end, start + 1);
      while (cut > start + 1 && /\p{M}/u.test(symbols[cut] ?? '')) cut--;
      pieces.push(symbols.slice(start, cut).join(''));
      start = cut;
    }
    while (symbols[start] === ' ') start++;
  }
  if (start < symbols.length) pieces.push(symbols.slice(start).join(''));
  return pieces.filter((piece) => piece !== '');
}

function weight(symbol: string): number {
  return symbol.normalize('NFD').length === symbol.length ? 1 : [...symbol.normalize('NFD')].length;
}

function countOf(symbols: readonly string[], from: number, to: number): number {
  let count = 0;
  for (let index = from; index < to; index++) count += weight(symbols[index] as string);
  return count;
}

/** The last index of `symbol` in [from, to), or -1. */
function lastIndexIn(symbols: readonly string[], symbol: string, from: number, to: number): number {
  for (let index = Math.min(to, symbols.length) - 1; index > from; index--) if (symbols[index] === symbol) return index;
  return -1;
}

/** The last space in [from, to) right after a clause mark, or -1. */
function lastSpaceAfterClause(symbols: readonly string[], from: number, to: number): number {
  for (let index = Math.min(to, symbols.length) - 1; index > from; index--) {
    if (symbols[index] === ' ' && CLAUSE_MARK.test(symbols[index - 1] as string)) return index;
  }
  return -1;
}
