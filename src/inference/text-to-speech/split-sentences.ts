/**
 * Splits text into sentences so speech can be synthesised and streamed one sentence at a time:
 * the first audio goes out while later sentences are still being synthesised. VITS models also
 * degrade (and slow down) on very long inputs, so over-long sentences are cut at clause
 * punctuation, or at a space as a last resort.
 */

/** Abbreviations whose trailing period does not end a sentence (lower case, without the period). */
const ABBREVIATIONS = new Set([
  'mr', 'mrs', 'ms', 'dr', 'prof', 'sr', 'jr', 'st', 'mt', 'ft', 'vs', 'etc', 'e.g', 'i.e', 'no', 'vol',
  'approx', 'inc', 'ltd', 'co', 'corp', 'dept', 'gen', 'gov', 'sen', 'rep', 'capt', 'col', 'lt', 'sgt',
  'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec',
]);

export const DEFAULT_MAX_SENTENCE_CHARS = 400;

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
  // unless the word before it is a known abbreviation or a single initial ("J. Smith").
  const boundary = /([.!?…]+["'”’)\]]*)\s+/gu;
  let start = 0;
  for (let match = boundary.exec(paragraph); match; match = boundary.exec(paragraph)) {
    const end = match.index + (match[1] as string).length;
    const before = paragraph.slice(start, match.index);
    const lastWord = /([\p{L}.]+)$/u.exec(before)?.[1] ?? '';
    const isAbbreviation = match[1] === '.' && (ABBREVIATIONS.has(lastWord.toLowerCase()) || /^\p{Lu}$/u.test(lastWord));
    if (isAbbreviation) continue;
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
