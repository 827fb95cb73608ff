/**
 * Text → espeak-ng IPA with the `phonemizer` package (no system espeak). Despite its "WASM"
 * billing, its dist is espeak-ng compiled to plain JavaScript (wasm2js): correct, but ~10–25 ms
 * per sentence, which is why Piper voices phonemise in their own worker.
 *
 * That package returns one string per espeak clause and drops the punctuation, which Piper
 * voices were trained with (it shapes pauses and intonation). We put it back: when the
 * sentence has as many clause marks as espeak found clauses, each clause gets its mark;
 * otherwise clauses are joined with commas and the sentence keeps its final mark.
 */
import { phonemize } from 'phonemizer';

const CLAUSE_MARK = /([,;:.!?])(?=\s|$)/g;

export async function espeakPhonemes(sentence: string, voice: string): Promise<string> {
  const clauses = (await phonemize(sentence, voice)).map((clause) => clause.trim()).filter((clause) => clause !== '');
  if (clauses.length === 0) return '';
  const marks = [...sentence.trim().matchAll(CLAUSE_MARK)].map((match) => match[1] as string);
  const finalMark = /[.!?]$/.test(sentence.trim()) ? (sentence.trim().slice(-1) as string) : '.';
  if (marks.length === clauses.length) {
    return clauses.map((clause, index) => clause + marks[index]).join(' ');
  }
  return clauses.map((clause, index) => clause + (index === clauses.length - 1 ? finalMark : ',')).join(' ');
}
