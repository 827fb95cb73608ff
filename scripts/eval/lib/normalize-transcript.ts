/**
 * Normalises English transcripts before WER, applied identically to reference and hypothesis:
 *
 * 1. Unicode NFKC, lower-case; curly apostrophes become `'`.
 * 2. Hyphens, dashes and slashes separate words ("ill-disposed" → "ill disposed").
 * 3. Integers (with optional thousands commas) and simple decimals are spelled out in words,
 *    because the reference texts (LibriVox, pocketsphinx, FLEURS) write numbers as words:
 *    "10" → "ten", "1961" → "one thousand nine hundred sixty one", "2.5" → "two point five".
 * 4. A few spoken abbreviations are expanded to the form the references use: mr → mister,
 *    mrs → missus, dr → doctor (only as whole words).
 * 5. All remaining punctuation and symbols are removed, apostrophes included ("don't" → "dont"),
 *    so contractions match however either side punctuates them.
 * 6. Whitespace collapses; the result is split into words.
 *
 * It is deliberately smaller than Whisper's EnglishTextNormalizer (no spelling standardisation,
 * no filler-word removal); the English clips in the evaluation set do not need more.
 */

const ONES = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const SCALES: ReadonlyArray<[number, string]> = [
  [1e9, 'billion'],
  [1e6, 'million'],
  [1e3, 'thousand'],
  [100, 'hundred'],
];
const ABBREVIATIONS: Readonly<Record<string, string>> = { mr: 'mister', mrs: 'missus', dr: 'doctor' };

/** English words for a non-negative integer below 10^12. */
export function integerToWords(value: number): string {
  if (value < 20) return ONES[value]!;
  if (value < 100) {
    const rest = value % 10;
    return rest === 0 ? TENS[Math.floor(value / 10)]! : `${TENS[Math.floor(value / 10)]} ${ONES[rest]}`;
  }
  for (const [scale, name] of SCALES) {
    if (value >= scale) {
      const head = `${integerToWords(Math.floor(value / scale))} ${name}`;
      const rest = value % scale;
      return rest === 0 ? head : `${head} ${integerToWords(rest)}`;
    }
  }
  throw new RangeError(`cannot spell ${value}`);
}

function spellNumber(digits: string): string {
  const [whole, fraction] = digits.replace(/,/g, '').split('.');
  const integer = Number(whole);
  if (!Number.isSafeInteger(integer) || integer >= 1e12) return digits.split('').join(' ');
  const words = integerToWords(integer);
  if (!fraction) return words;
  return `${words} point ${fraction
    .split('')
    .map((d) => ONES[Number(d)])
    .join(' ')}`;
}

export function normalizeTranscript(text: string): string[] {
  let s = text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc]/g, "'");
  s = s.replace(/[-\u2010-\u2015/]/g, ' ');
  s = s.replace(/\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?/g, (m) => ` ${spellNumber(m)} `);
  s = s.replace(/[^\p{L}\p{N}\s]/gu, (c) => (c === '.' ? ' ' : ''));
  return s
    .split(/\s+/)
    .filter((w) => w !== '')
    .map((w) => ABBREVIATIONS[w] ?? w);
}

/** Lower case, letters and digits only (accents kept), as scripts/eval/multilingual-speech.ts compares. */
export function multilingualWords(text: string): string[] {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}']+/gu, ' ')
    .replace(/'/g, ' ')
    .trim()
    .split(/\s+/)
    .filter(Boolean);
}
