import { expect } from 'chai';
import { phonemeIds } from '../../../src/inference/text-to-speech/piper-phoneme-ids.js';

const ID_MAP = new Map<string, number[]>([
  ['_', [0]],
  ['^', [1]],
  ['$', [2]],
  [' ', [3]],
  ['h', [20]],
  ['a', [14]],
  ['ɪ', [74]],
  ['ˈ', [120]],
  ['.', [10]],
  ['ç', [40]],
]);

describe('phonemeIds', () => {
  it('is BOS, pad, then each phoneme followed by pad, then EOS (as Piper)', () => {
    // Piper's own output for "Hi." with en_US voices: [1, 0, 20, 0, 120, 0, 14, 0, 74, 0, 10, 0, 2]
    expect(phonemeIds('hˈaɪ.', ID_MAP)).to.deep.equal([1, 0, 20, 0, 120, 0, 14, 0, 74, 0, 10, 0, 2]);
  });

  it('skips phonemes the voice does not know', () => {
    expect(phonemeIds('h?a', ID_MAP)).to.deep.equal([1, 0, 20, 0, 14, 0, 2]);
  });

  it('works on NFD code points, like Piper', () => {
    // "ç" precomposed is c + combining cedilla after NFD; neither is in this map except as "ç".
    expect(phonemeIds('ç', ID_MAP)).to.deep.equal([1, 0, 2]);
    expect(phonemeIds('', ID_MAP)).to.deep.equal([1, 0, 2]);
  });
});
