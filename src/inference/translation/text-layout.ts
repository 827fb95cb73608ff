/**
 * Splits a text into the units a translator works on (lines, or sentences within lines) and
 * puts the translated units back in the same places, so line and paragraph breaks, blank lines
 * and indentation survive translation. Pure string work; no model knows about layout.
 */

interface LayoutOptions {
  /** Split lines into sentences (neural models); Apertium takes whole lines. */
  sentences: boolean;
  /** Longer units are cut at a clause or word boundary (neural models have a context limit). */
  maxUnitChars?: number;
}

interface TextLayout {
  /** Text to translate, in reading order; never empty or padded with blanks. */
  readonly units: readonly string[];
  /** The original text with each unit replaced by its translation. */
  rebuild(translations: readonly string[]): string;
}

export function layoutText(text: string, options: LayoutOptions): TextLayout {
  const units: string[] = [];
  // Strings are copied verbatim; numbers are indexes into `units`.
  const parts: (string | number)[] = [];
  for (const piece of text.split(/(\r\n|\r|\n)/)) {
    // trim() removes exactly what \s matches. A regex split into lead/body/trail was quadratic
    // in a long blank run inside a line (0.8 s of blocked event loop for 20,000 blanks).
    const body = piece.trim();
    const lead = piece.slice(0, piece.length - piece.trimStart().length);
    const trail = piece.slice(lead.length + body.length);
    if (body === '') {
      parts.push(piece);
      continue;
    }
    parts.push(lead);
    const pieces = (options.sentences ? splitSentences(body) : [body]).flatMap((unit) => cut(unit, options.maxUnitChars));
    pieces.forEach((unit, index) => {
      if (index > 0) parts.push(' ');
      parts.push(units.push(unit) - 1);
    });
    parts.push(trail);
  }
  return {
    units,
    rebuild(translations) {
      if (translations.length !== units.length) {
        throw new Error(`expected ${units.length} translations, got ${translations.length}`);
      }
      return parts.map((part) => (typeof part === 'number' ? (translations[part] as string).trim() : part)).join('');
    },
  };
}

/** Abbreviations whose period does not end a sentence (compared lower-cased, without the dot). */
const ABBREVIATIONS = new Set(
  (
    'mr mrs ms dr prof sr sra jr st mt vs etc eg ie e.g i.e inc ltd co corp no nos fig figs vol pp ca approx ' +
    'jan feb mar apr jun jul aug sep sept oct nov dec u.s u.k a.m p.m dept gen gov sen rep lt col sgt ' +
    'art núm pág av avda dña dra ud uds sres mme mlle env cf bzw usw z.b d.h'
  ).split(' '),
);

const TERMINAL = /[.!?…]/;
const CJK_TERMINAL = /[。！？]/;
const CLOSING = /["'”’»)\]}]/;

/**
 * Sentence boundaries: terminal punctuation (plus closing quotes/brackets) followed by blanks and
 * something that can start a sentence; CJK full stops need no blank. Known limits: lower-case
 * sentence starts and unknown abbreviations followed by a capitalised name.
 */
export function splitSentences(text: string): string[] {
  const sentences: string[] = [];
  let start = 0;
  let index = 0;
  while (index < text.length) {
    const char = text[index] as string;
    if (CJK_TERMINAL.test(char)) {
      let end = index + 1;
      while (end < text.length && CLOSING.test(text[end] as string)) end++;
      push(sentences, text.slice(start, end));
      start = end;
      index = end;
      continue;
    }
    if (TERMINAL.test(char)) {
      let end = index + 1;
      while (end < text.length && (TERMINAL.test(text[end] as string) || CLOSING.test(text[end] as string))) end++;
      const gap = /^\s+/.exec(text.slice(end))?.[0].length ?? 0;
      const next = text[end + gap];
      if (gap > 0 && next !== undefined && startsSentence(next) && !(char === '.' && isAbbreviation(text, index))) {
        push(sentences, text.slice(start, end));
        start = end + gap;
        index = start;
        continue;
      }
      index = end;
      continue;
    }
    index++;
  }
  push(sentences, text.slice(start));
  return sentences;
}

function push(sentences: string[], sentence: string): void {
  const trimmed = sentence.trim();
  if (trimmed !== '') sentences.push(trimmed);
}

function startsSentence(char: string): boolean {
  // Upper case, digits, opening punctuation, or a letter of a script without case.
  return /[\p{Lu}\p{N}"'“‘«¿¡([]/u.test(char) || (/\p{L}/u.test(char) && char.toLowerCase() === char.toUpperCase());
}

function isAbbreviation(text: string, dot: number): boolean {
  const word = /([\p{L}.]+)$/u.exec(text.slice(Math.max(0, dot - 12), dot))?.[1] ?? '';
  if (word === '') return false;
  // A single capital is an initial ("J. R. R. Tolkien").
  if (/^\p{Lu}$/u.test(word)) return true;
  return ABBREVIATIONS.has(word.toLowerCase().replace(/^\.+/, ''));
}

/** Cuts a too-long unit at the last clause mark or blank before the limit. */
function cut(unit: string, maxChars: number | undefined): string[] {
  if (maxChars === undefined || unit.length <= maxChars) return [unit];
  const pieces: string[] = [];
  let rest = unit;
  while (rest.length > maxChars) {
    const window = rest.slice(0, maxChars);
    const clause = Math.max(window.lastIndexOf(', '), window.lastIndexOf('; '), window.lastIndexOf(': '));
    const blank = window.lastIndexOf(' ');
    const at = clause > maxChars / 2 ? clause + 1 : blank > 0 ? blank : maxChars;
    pieces.push(rest.slice(0, at).trim());
    rest = rest.slice(at).trim();
  }
  if (rest !== '') pieces.push(rest);
  return pieces.filter((piece) => piece !== '');
}
