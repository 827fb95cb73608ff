/**
 * Text → Kokoro phonemes with espeak-ng (WASM). Kokoro was trained on misaki's phoneme set, where
 * a diphthong or affricate is one symbol (eɪ → A, aɪ → I, oʊ → O, tʃ → ʧ …); misaki itself turns
 * espeak's output into that set with a table (its EspeakFallback for English words, EspeakG2P for
 * Spanish, French, Hindi, Italian and Portuguese). The tables below follow misaki 0.9.4's, applied
 * to espeak's own phoneme segmentation (what misaki marks with its tie character). kokoro-js
 * instead passes espeak's IPA through nearly unchanged; no voice was compared by ear here.
 * Clause punctuation comes back from the text, as for Piper (espeak-phonemes.ts).
 */
import { loadEspeakNg } from './espeak-ng-wasm.js';
import { withClauseMarks } from './espeak-phonemes.js';
import type { KokoroLanguage } from './kokoro-voices.js';

export type Dialect = 'us' | 'gb' | 'other';

/** One espeak phoneme (without its stress mark) → misaki's symbol. */
const PHONEME_SYMBOLS: Readonly<Record<Dialect, Readonly<Record<string, string>>>> = {
  us: { aɪ: 'I', aʊ: 'W', dʒ: 'ʤ', eɪ: 'A', e: 'A', tʃ: 'ʧ', ɔɪ: 'Y', əl: 'ᵊl', oʊ: 'O' },
  gb: { aɪ: 'I', aʊ: 'W', dʒ: 'ʤ', eɪ: 'A', e: 'A', tʃ: 'ʧ', ɔɪ: 'Y', əl: 'ᵊl', əʊ: 'Q', eə: 'ɛː' },
  other: { aɪ: 'I', aʊ: 'W', dz: 'ʣ', dʒ: 'ʤ', eɪ: 'A', oʊ: 'O', əʊ: 'Q', ss: 'S', ts: 'ʦ', tʃ: 'ʧ', ɔɪ: 'Y' },
};

/** Then, on each English word: symbols English Kokoro voices were not trained with. */
const ENGLISH_REWRITES: ReadonlyArray<readonly [RegExp, string]> = [
  [/ʔˌ?n\u0329/g, 'ʔn'],
  [/ʲ(?=[oə])/g, 'j'],
  [/ʲ/g, ''],
  [/ɚ/g, 'əɹ'],
  [/r/g, 'ɹ'],
  [/[xç]/g, 'k'],
  [/ɐ/g, 'ə'],
  [/ɬ/g, 'l'],
  [/\u0303/g, ''],
  // A syllabic consonant (n̩) is written with a schwa before it.
  [/(\S)\u0329/g, 'ᵊ$1'],
];
const US_REWRITES: ReadonlyArray<readonly [RegExp, string]> = [
  [/ɜːɹ/g, 'ɜɹ'],
  [/ɜː/g, 'ɜɹ'],
  [/ɪə/g, 'iə'],
  [/ː/g, ''],
];
const GB_REWRITES: ReadonlyArray<readonly [RegExp, string]> = [[/iə/g, 'ɪə']];
const ENGLISH_FINAL: ReadonlyArray<readonly [RegExp, string]> = [
  [/o/g, 'ɔ'],
  [/ɾ/g, 'T'],
  [/ʔ/g, 't'],
];

const STRESS = /^[ˈˌ]*/;

/** The Kokoro phonemes of one sentence in a voice's language (which must have an espeak voice). */
export async function kokoroPhonemes(sentence: string, language: KokoroLanguage & { espeak: string }): Promise<string> {
  const espeak = await loadEspeakNg();
  const dialect: Dialect = language.code === 'a' ? 'us' : language.code === 'b' ? 'gb' : 'other';
  const clauses = espeak.phonemes(sentence, language.espeak).map((words) => words.map((word) => spellWord(word, dialect)).join(' '));
  return withClauseMarks(sentence, clauses, { dash: '—' });
}

/** One word's espeak phonemes in Kokoro's symbols (exported for tests). */
export function spellWord(phonemes: readonly string[], dialect: Dialect): string {
  const table = PHONEME_SYMBOLS[dialect];
  let word = phonemes
    .map((phoneme) => {
      const stress = STRESS.exec(phoneme)?.[0] ?? '';
      const core = phoneme.slice(stress.length);
      return stress + (table[core] ?? core);
    })
    .join('');
  if (dialect === 'other') return word.replaceAll('-', '');
  for (const [pattern, replacement] of [...ENGLISH_REWRITES, ...(dialect === 'us' ? US_REWRITES : GB_REWRITES), ...ENGLISH_FINAL]) {
    word = word.replace(pattern, replacement);
  }
  return word;
}
