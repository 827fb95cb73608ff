import { expect } from 'chai';
import { normalizeTranscript } from '../../scripts/eval/lib/normalize-transcript.js';
import { wordErrors } from '../../scripts/eval/lib/wer.js';

/**
 * A synthesised sentence transcribed back is close to what was said: word error rate at most
 * 0.2, not the exact words, because VITS draws its timing at random on every run and
 * whisper-tiny then mishears a word now and then ("quit brown fox"). An unrelated transcript is 1.0.
 */
export function expectHeardBack(sentence: string, heard: string): void {
  expect(heardWer(sentence, heard), `heard "${heard}"`).to.be.at.most(0.2);
}

/**
 * expectHeardBack over a second rendering when the first is misheard: on a 13-word sentence
 * one rendering in a few loses two or three words to whisper-tiny ("eighteen" heard as "8"), and
 * a fresh rendering is an independent draw. A broken codec or voice is misheard both times.
 */
export async function expectHeardBackInOneOfTwo(sentence: string, speakAndHear: () => Promise<string>): Promise<void> {
  const first = await speakAndHear();
  if (heardWer(sentence, first) <= 0.2) return;
  const second = await speakAndHear();
  expect(heardWer(sentence, second), `heard "${first}", then "${second}"`).to.be.at.most(0.2);
}

function heardWer(sentence: string, heard: string): number {
  return wordErrors(normalizeTranscript(sentence), normalizeTranscript(heard)).wer;
}
