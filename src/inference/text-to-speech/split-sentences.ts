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

/**
 * Splits off a short first clause ("Henry V, …" → "Henry V," + "…") so the first audio of a
 * stream is ready sooner: time to first byte is the synthesis time of the first piece. Only at
 * a clause mark (a natural pause, which Piper voices already render), never mid-clause.
 */
export function splitFirstClause(sentence: string, options: { minChars?: number; maxHeadWords?: number } = {}): string[] {
  const { minChars = 60, maxHeadWords = 8 } = options;
  if (sentence.length < minChars) return [sentence];
  const mark = /[,;:](?=\s)/g.exec(sentence);
  if (!mark) return [sentence];
  const head = sentence.slice(0, mark.index + 1).trim();
  const words = head.split(/\s+/).length;
  if (words < 2 || words > maxHeadWords) return [sentence];
  return [head, sentence.slice(mark.index + 1).trim()];
}
