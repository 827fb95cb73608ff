/**
 * Splits text into sentences so speech can be synthesised and streamed one sentence at a time:
 * the first audio goes out while later sentences are still being synthesised. VITS models also
 * degrade (and slow down) on very long inputs, so over-long sentences are cut at clause
 * punctuation, or at a space as a last resort.
 */

/** Abbreviations whose trailing period does not end a sentence (lower case, without the period). */
const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'sr',
  'jr',
  'st',
  'mt',
  'ft',
  'vs',
  'etc',
  'e.g',
  'i.e',
  'no',
  'vol',
  'approx',
  'inc',
  'ltd',
  'co',
  'corp',
  'dept',
  'gen',
  'gov',
  'sen',
  'rep',
  'capt',
  'col',
  'lt',
  'sgt',
  'jan',
  'feb',
  'mar',
  'apr',
  'jun',
  'jul',
  'aug',
  'sep',
  'sept',
  'oct',
  'nov',
  'dec',
]);

const DEFAULT_MAX_SENTENCE_CHARS = 400;

/** A lower-case letter at exactly `lastIndex`. */
const LOWER_CASE_AT = /\p{Ll}/uy;

export function splitSentences(text: string, maxChars = DEFAULT_MAX_SENTENCE_CHARS): string[] {
  const sentences: string[] = [];
  for (const paragraph of text.split(/\n\s*\n|\r?\n/)) {
    for (const sentence of splitParagraph(paragraph)) sentences.push(...cutLong(sentence, maxChars));
  }
  return sentences.filter((sentence) => /[\p{L}\p{N}]/u.test(sentence));
}

function splitParagraph(paragraph: string): string[] {
  const out: string[] = [];
  // A terminator run (.!? plus closing quotes/brackets), then whitespace, ends a sentence
  // unless the word before it is a known abbreviation or a single initial ("J. Smith"), or, as
  // espeak-ng (Piper's sentence splitter) decides, a period is followed by a lower-case word
  // ("I.B.M. but moved").
  const boundary = /([.!?…]+["'”’)\]]*)\s+/gu;
  let start = 0;
  for (let match = boundary.exec(paragraph); match; match = boundary.exec(paragraph)) {
    const end = match.index + (match[1] as string).length;
    const before = paragraph.slice(start, match.index);
    const lastWord = /([\p{L}.]+)$/u.exec(before)?.[1] ?? '';
    LOWER_CASE_AT.lastIndex = boundary.lastIndex;
    const notAnEnd = match[1] === '.' && (ABBREVIATIONS.has(lastWord.toLowerCase()) || /^\p{Lu}$/u.test(lastWord) || LOWER_CASE_AT.test(paragraph));
    if (notAnEnd) continue;
    out.push(paragraph.slice(start, end).trim());
    start = boundary.lastIndex;
  }
  out.push(paragraph.slice(start).trim());
  return out.filter((sentence) => sentence !== '');
}

function cutLong(sentence: string, maxChars: number): string[] {
  if (sentence.length <= maxChars) return [sentence];
  const window = sentence.slice(0, maxChars);
  // Prefer the last clause break in the window, then the last space, then a hard cut.
  const clause = Math.max(...[',', ';', ':', '—', ' - '].map((mark) => window.lastIndexOf(mark)));
  const space = window.lastIndexOf(' ');
  const cut = clause > maxChars / 3 ? clause + 1 : space > maxChars / 3 ? space : maxChars;
  return [sentence.slice(0, cut).trim(), ...cutLong(sentence.slice(cut).trim(), maxChars)].filter((part) => part !== '');
}

/** Function words that begin a phrase: a pause before one falls between phrases. */
const PHRASE_STARTERS = new Set(
  (
    'a an the this that these those my your his her its our their some any every each ' +
    'of to in on at by for from with into onto about over under after before until since than as like through beside beyond ' +
    'and or but nor so if because while when where who which whose what why how there ' +
    'is are was were be been am has have had do does did will would can could shall should may might must'
  ).split(' '),
);

/** Words that do not end a first piece: they belong with the word after them. */
const CLINGING_WORDS = new Set(
  (
    'a an the this that these those my your his her its our their some any no every each ' +
    'of to in on at by for from with into onto about over under after before than as and or but nor so if ' +
    'is are was were be been am has have had do does did will would can could shall should may might must ' +
    "not i you he she it we they who which whose i'm it's there's he's she's " +
    'one two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty sixty seventy eighty ninety hundred thousand'
  ).split(' '),
);

/** Defaults of splitFirstPiece (docs/benchmarks.md, "Text to speech", has the measurements). */
export const FIRST_PIECE_DEFAULTS = Object.freeze({ words: 3, maxClauseWords: 8, minRestWords: 3 });

export interface FirstPieceOptions {
  /** About how many words a first piece cut at a word boundary has (0: cut only at a clause mark). */
  words?: number;
  /** A first clause of at most this many words is sent first. */
  maxClauseWords?: number;
  /** Words that must remain after the cut; a sentence under `words + minRestWords` words is not cut at a word boundary. */
  minRestWords?: number;
}

/**
 * Cuts the first sentence of a stream in two so its first audio is ready sooner: time to first
 * byte is the synthesis time of the first piece, and the rest is synthesised while that piece
 * plays. The cut is at a short first clause ("Henry V," …), a natural pause the voices render
 * anyway. Without one it is at a word boundary near `words` spoken words (a number counts as
 * its digits): first where a phrase begins
 * ("… slid | on the …"), else anywhere but after a word that belongs with the next ("the",
 * "was", a number, an abbreviation, an initial: "$2.7 | million", "St. | Andrews" stay whole),
 * and that first piece is spoken as a clause, with a comma.
 */
export function splitFirstPiece(sentence: string, options: FirstPieceOptions = {}): string[] {
  const { words: headWords, maxClauseWords, minRestWords } = { ...FIRST_PIECE_DEFAULTS, ...options };
  const words = sentence.trim().split(/\s+/);
  const cutAfter = (count: number) => [words.slice(0, count).join(' '), words.slice(count).join(' ')];
  const clauseEnd = words.findIndex((word, index) => index >= 1 && /[,;:]["'”’)\]]*$/u.test(word));
  if (clauseEnd >= 1 && clauseEnd < maxClauseWords && words.length - clauseEnd - 1 >= minRestWords) return cutAfter(clauseEnd + 1);
  // A short sentence is quick to synthesise whole: its prosody is worth more than the few ms.
  if (headWords < 1 || words.length < headWords + minRestWords) return [sentence];
  // Where about `words` words have been said: a number is said in about as many words as it
  // has digits ("2005-2015", "12,345"), so it counts for that many.
  let said = 0;
  const target = words.findIndex((word) => (said += Math.max(1, word.replace(/\D/g, '').length)) >= headWords) + 1;
  // Nearest to that first, never a lone word, and enough left to be worth a second piece.
  const candidates = [0, -1, 1, -2, 2, 3].map((shift) => target + shift).filter((count) => count >= 2 && words.length - count >= minRestWords);
  const last = (count: number) => bare(words[count - 1] as string);
  const endsWell = (count: number) =>
    !CLINGING_WORDS.has(last(count)) && !ABBREVIATIONS.has(last(count)) && !/^\p{L}$/u.test(last(count)) && !/\.$/.test(words[count - 1] as string);
  const count =
    candidates.find((count) => endsWell(count) && PHRASE_STARTERS.has(bare(words[count] as string))) ??
    candidates.find((count) => endsWell(count) && !/^[\d$€£]/u.test(last(count)));
  if (count === undefined) return [sentence];
  // Spoken as a clause: a piece ending on a bare word loses the word's last sound ("awake" heard
  // as "away", "date" as "day"); before a comma the voice finishes it, as before any pause.
  const [head, rest] = cutAfter(count) as [string, string];
  return [`${head},`, rest];
}

/** Lower case, without surrounding quotes, brackets and punctuation. */
function bare(word: string): string {
  return word.toLowerCase().replace(/^["'“‘([]+|["'”’)\].,;:!?]+$/gu, '');
}
