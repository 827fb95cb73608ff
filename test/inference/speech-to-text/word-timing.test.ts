/**
 * The pure steps of word timestamps (word-timing.ts), on small hand-made inputs whose answers
 * can be worked out by hand; the whole chain runs on the real model in openai-sdk.slow.test.ts and
 * scripts/bench/word-timestamps.ts compares it with faster-whisper.
 */
import { expect } from 'chai';
import {
  END_OF_TEXT_WORD,
  alignmentMatrix,
  assignWords,
  dtw,
  medianFilter,
  mergePunctuations,
  splitWords,
  timeWords,
  type WordTiming,
} from '../../../src/inference/speech-to-text/decoding/word-timing.js';

describe('word timing', () => {
  it('medianFilter takes the median of each window with reflected edges, and leaves too-short input alone', () => {
    expect([...medianFilter([1, 9, 2, 8, 3], 3)]).to.deep.equal([9, 2, 8, 3, 8]);
    expect([...medianFilter([5], 7)]).to.deep.equal([5]);
  });

  it('dtw follows the cheap cells from corner to corner, one step at a time', () => {
    // 2 tokens × 4 frames: token 0 cheap on frames 0-1, token 1 on frames 2-3.
    const cost = [-1, -1, 0, 0, 0, 0, -1, -1];
    const path = dtw(cost, 2, 4);
    // Worked by hand with openai's rules (a tie moves right; the last cheap token-0 cell leads down).
    expect(path.rowIndices).to.deep.equal([0, 0, 1, 1, 1]);
    expect(path.colIndices).to.deep.equal([0, 1, 1, 2, 3]);
  });

  it('alignmentMatrix renormalises over the used frames, standardises each frame and averages heads', () => {
    // One head, 2 tokens × 4 frames, only the first 2 frames used.
    const weights = Float32Array.from([0.3, 0.1, 0.3, 0.3, 0.1, 0.3, 0.3, 0.3]);
    const { matrix, rows, cols } = alignmentMatrix([{ weights, tokens: 2, frames: 4 }], 2, 1);
    expect([rows, cols]).to.deep.equal([2, 2]);
    // Rows become [0.75, 0.25] and [0.25, 0.75]; standardised per column: ±1.
    expect([...matrix].map((value) => Math.round(value * 1000) / 1000)).to.deep.equal([1, -1, -1, 1]);
  });

  it('splitWords starts a word at a space or punctuation and keeps a multi-byte character whole', () => {
    const pieces: Record<number, string> = { 1: ' Hello', 2: ',', 3: ' wor', 4: 'ld', 5: ' caf', 6: '\u00c3', 7: '\u00a9' };
    // Tokens 6 and 7 are the two bytes of "é": alone, 6 decodes to U+FFFD.
    const decode = (ids: number[]) => {
      const text = ids.map((id) => pieces[id]).join('');
      return text.replace('\u00c3\u00a9', 'é').replace('\u00c3', '\ufffd');
    };
    expect(splitWords([1, 2, 3, 4, 5, 6, 7], decode)).to.deep.equal([
      { word: ' Hello', tokens: [1] },
      { word: ',', tokens: [2] },
      { word: ' world', tokens: [3, 4] },
      { word: ' café', tokens: [5, 6, 7] },
    ]);
  });

  it('timeWords reads each word start where the path first reaches its first token', () => {
    const words = [
      { word: ' a', tokens: [1] },
      { word: ' bc', tokens: [2, 3] },
      { word: '<|endoftext|>', tokens: [0] },
    ];
    // Rows 0..3 entered at steps 0, 10, 25, 40 (50 steps per second).
    const path = { rowIndices: [0, 0, 1, 2, 3], colIndices: [0, 5, 10, 25, 40] };
    const timed = timeWords(words, path);
    expect(timed.map(({ word, start, end }) => [word, start, end])).to.deep.equal([
      [' a', 0, 0.2],
      [' bc', 0.2, 0.8],
      ['<|endoftext|>', 0.8, 0.8],
    ]);
  });

  it('mergePunctuations joins opening punctuation forward and closing punctuation back', () => {
    const timing = (word: string, tokens: number[]): WordTiming => ({ word, tokens, start: 0, end: 0 });
    const alignment = [timing(' "', [1]), timing('Hi', [2]), timing('.', [3]), timing(' there', [4])];
    mergePunctuations(alignment);
    expect(alignment.map((entry) => [entry.word, entry.tokens])).to.deep.equal([
      ['', []],
      [' "Hi.', [1, 2, 3]],
      ['', []],
      [' there', [4]],
    ]);
  });

  it('assignWords deals words out to segments by token count, on the audio timeline, and moves segment bounds to them', () => {
    const alignment: WordTiming[] = [
      { word: ' one', tokens: [1], start: 0.5, end: 0.9 },
      { word: ' two', tokens: [2], start: 1.0, end: 1.4 },
      { word: ' three', tokens: [3], start: 2.0, end: 2.5 },
      { word: '<|endoftext|>', tokens: [0], start: 2.5, end: 2.5 },
    ];
    const segments = [
      { start: 0, end: 1.6, textTokens: [1, 2] },
      { start: 1.6, end: 3, textTokens: [3] },
    ];
    const { words, lastSpeechTimestamp } = assignWords(alignment, segments, 30, 30);
    expect(words).to.deep.equal([
      [
        { word: ' one', start: 30.5, end: 30.9 },
        { word: ' two', start: 31, end: 31.4 },
      ],
      [{ word: ' three', start: 32, end: 32.5 }],
    ]);
    expect(segments.map(({ start, end }) => [start, end])).to.deep.equal([
      [30.5, 31.4],
      [32, 32.5],
    ]);
    expect(lastSpeechTimestamp).to.equal(32.5);
  });

  it('assignWords never hands out the end-of-text entry as a word, even when a word spans two segments', () => {
    // ' Hello' is two tokens, the first in segment one and the second in segment two: segment two's
    // count then reaches past ' world' to the end-of-text entry.
    const alignment: WordTiming[] = [
      { word: ' Hello', tokens: [1, 2], start: 0.5, end: 0.9 },
      { word: ' world', tokens: [3], start: 1.0, end: 1.4 },
      { word: END_OF_TEXT_WORD, tokens: [0], start: 1.4, end: 1.4 },
    ];
    const segments = [
      { start: 0, end: 0.7, textTokens: [1] },
      { start: 0.7, end: 1.6, textTokens: [2, 3] },
    ];
    const { words } = assignWords(alignment, segments, 0, 0);
    expect(words.flat().map((word) => word.word)).to.deep.equal([' Hello', ' world']);
  });
});
