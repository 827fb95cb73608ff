/**
 * Text → espeak-ng IPA as Piper feeds its voices, with espeak-ng in WebAssembly (no system
 * espeak). espeak reports one phoneme string per clause and drops the punctuation, which Piper
 * voices were trained with (it shapes pauses and intonation); Piper's espeak build returns each
 * clause's mark and writes "clause, clause; clause." We put the marks back from the text: when
 * it has as many clause marks as espeak found clauses, each clause gets its mark; otherwise
 * clauses are joined with commas and the last keeps the text's final mark. Like Piper, text
 * without a final mark gets none.
 */
import { loadEspeakNg } from './espeak-ng-wasm.js';

/** A clause mark (closing quotes or brackets may follow it) before a space or the end. An em dash ends a clause as a semicolon does. */
const CLAUSE_MARK = /(?:([,;:.!?])["'”’)\]]*|\s(—))(?=\s|$)/g;
const FINAL_MARK = /([.!?])["'”’)\]]*$/;

export async function espeakPhonemes(sentence: string, voice: string): Promise<string> {
  return withClauseMarks(sentence, (await loadEspeakNg()).clauses(sentence, voice));
}

/**
 * Joins the phonemes of `sentence`'s clauses, each followed by the text's clause mark as above.
 * `dash`: what an em dash becomes (Piper's voices know no dash; Kokoro's vocabulary has one).
 */
export function withClauseMarks(sentence: string, phonemeClauses: readonly string[], options: { dash?: string } = {}): string {
  const clauses = phonemeClauses.filter((clause) => clause !== '');
  if (clauses.length === 0) return '';
  const text = sentence.trim();
  const marks = [...text.matchAll(CLAUSE_MARK)].map((match) => (match[1] ?? options.dash ?? ';') as string);
  if (marks.length === clauses.length) {
    return clauses.map((clause, index) => clause + marks[index]).join(' ');
  }
  const finalMark = FINAL_MARK.exec(text)?.[1] ?? '';
  return clauses.map((clause, index) => clause + (index === clauses.length - 1 ? finalMark : ',')).join(' ');
}
