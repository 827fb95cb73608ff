import { expect } from 'chai';
import { normalizeTranscript } from '../../scripts/eval/lib/normalize-transcript.js';
import { wordErrors } from '../../scripts/eval/lib/wer.js';

/**
 * A synthesised sentence transcribed back is close to what was said: word error rate at most
 * 0.2, not the exact words, because VITS draws its timing at random on every run and
 * whisper-tiny then mishears a word now and then ("quit brown fox"). An unrelated transcript is 1.0.
 */
export function expectHeardBack(sentence: string, heard: string): void {
  expect(wordErrors(normalizeTranscript(sentence), normalizeTranscript(heard)).wer, `heard "${heard}"`).to.be.at.most(0.2);
}
