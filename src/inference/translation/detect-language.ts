/**
 * A small, honest source-language guess for multilingual models when the client sends no
 * source_language: the writing system decides most languages; Latin-script text is scored by
 * counting very common words. Limits: it needs a few words of running text, it cannot tell
 * close relatives apart reliably (es/gl, ca/oc, da/no, sr/hr), and answers undefined rather than
 * guessing when nothing matches. Clients that know the source should send it.
 */

/** Scripts used by (mostly) one language among the ones our models support. */
const SCRIPTS: readonly [RegExp, string][] = [
  [/[\u3040-\u30ff]/, 'ja'], // kana first: Japanese text also uses Han characters
  [/[\uac00-\ud7af\u1100-\u11ff]/, 'ko'],
  [/[\u4e00-\u9fff\u3400-\u4dbf]/, 'zh'],
  [/[\u0590-\u05ff]/, 'he'],
  [/[\u0370-\u03ff]/, 'el'],
  [/[\u0e00-\u0e7f]/, 'th'],
  [/[\u0900-\u097f]/, 'hi'],
  [/[\u0980-\u09ff]/, 'bn'],
  [/[\u0b80-\u0bff]/, 'ta'],
  [/[\u0c00-\u0c7f]/, 'te'],
  [/[\u0530-\u058f]/, 'hy'],
  [/[\u10a0-\u10ff]/, 'ka'],
];

const STOPWORDS: Readonly<Record<string, readonly string[]>> = {
  en: ['the', 'and', 'is', 'are', 'was', 'of', 'to', 'in', 'that', 'it', 'with', 'for', 'this', 'you', 'have', 'hello', 'not', 'be', 'on', 'what'],
  es: ['el', 'la', 'los', 'las', 'y', 'es', 'de', 'que', 'en', 'un', 'una', 'por', 'con', 'para', 'hola', 'del', 'se', 'no', 'está', 'muy', 'pero', 'como'],
  fr: [
    'le',
    'la',
    'les',
    'et',
    'est',
    'de',
    'des',
    'que',
    'un',
    'une',
    'pour',
    'dans',
    'bonjour',
    'du',
    'pas',
    'avec',
    'je',
    'nous',
    'vous',
    'très',
    'mais',
    'sur',
  ],
  de: ['der', 'die', 'das', 'und', 'ist', 'nicht', 'ein', 'eine', 'mit', 'zu', 'den', 'von', 'ich', 'sie', 'wir', 'hallo', 'auf', 'für', 'auch', 'sehr'],
  it: ['il', 'lo', 'gli', 'e', 'è', 'di', 'che', 'un', 'una', 'per', 'con', 'non', 'sono', 'ciao', 'della', 'del', 'questo', 'molto', 'ma', 'anche'],
  pt: ['o', 'os', 'as', 'e', 'é', 'de', 'que', 'um', 'uma', 'para', 'com', 'não', 'olá', 'do', 'da', 'em', 'muito', 'mas', 'você', 'isso'],
  nl: ['de', 'het', 'een', 'en', 'is', 'van', 'dat', 'niet', 'met', 'voor', 'ik', 'zijn', 'hallo', 'ook', 'maar', 'op', 'wij', 'heel'],
  ca: ['el', 'la', 'els', 'les', 'i', 'és', 'de', 'que', 'un', 'una', 'per', 'amb', 'no', 'hola', 'del', 'molt', 'però', 'aquest'],
  sv: ['och', 'är', 'att', 'det', 'en', 'ett', 'som', 'för', 'med', 'inte', 'jag', 'hej', 'på', 'av', 'till', 'mycket'],
  pl: ['i', 'jest', 'nie', 'się', 'w', 'na', 'to', 'że', 'z', 'do', 'jak', 'cześć', 'ale', 'bardzo', 'oraz'],
  tr: ['ve', 'bir', 'bu', 'için', 'de', 'da', 'ile', 'çok', 'değil', 'merhaba', 'ben', 'ama', 'gibi'],
  ro: ['și', 'este', 'în', 'de', 'la', 'că', 'un', 'o', 'cu', 'pentru', 'nu', 'salut', 'foarte', 'dar'],
};

export function detectLanguage(text: string): string | undefined {
  return languageCandidates(text)[0]?.language;
}

/**
 * Every language the text may be in, most likely first, with a confidence in percent: 90 for a
 * script only one of our languages uses; otherwise each language's share of the common words
 * found (two languages tied at 3 words each get 50 each). Empty when nothing matches.
 */
export function languageCandidates(text: string): { language: string; confidence: number }[] {
  const sample = text.slice(0, 2000);
  const byScript = scriptLanguage(sample);
  if (byScript) return [{ language: byScript, confidence: 90 }];
  const scores = stopwordScores(sample);
  const total = scores.reduce((sum, [, score]) => sum + score, 0);
  return scores.map(([language, score]) => ({ language, confidence: Math.round((1000 * score) / total) / 10 }));
}

function scriptLanguage(sample: string): string | undefined {
  for (const [pattern, language] of SCRIPTS) if (pattern.test(sample)) return language;
  if (/[\u0600-\u06ff]/.test(sample)) return /[پچژگ]/.test(sample) ? 'fa' : 'ar';
  if (/[\u0400-\u04ff]/.test(sample)) return /[іїєґ]/i.test(sample) ? 'uk' : 'ru';
  return undefined;
}

const STOPWORD_SETS = Object.entries(STOPWORDS).map(([language, list]) => [language, new Set(list)] as const);

/**
 * Languages with at least one common word, by count; ties keep the order of STOPWORDS (the more
 * widely used language first: "hola" is es before ca).
 */
function stopwordScores(text: string): [string, number][] {
  const words = text.toLowerCase().match(/\p{L}+/gu) ?? [];
  return STOPWORD_SETS.map(([language, set]) => [language, words.reduce((sum, word) => sum + (set.has(word) ? 1 : 0), 0)] as [string, number])
    .filter(([, score]) => score > 0)
    .sort((a, b) => b[1] - a[1]);
}
