import { expect } from 'chai';
import { PIECE_PHONEMES, phonemeCount, piecePhonemeLimit, splitPhonemes } from '../../../src/inference/text-to-speech/phoneme-pieces.js';

describe('phoneme pieces', () => {
  it('gives slower speeds proportionally fewer phonemes, never more than at speed 1', () => {
    expect(piecePhonemeLimit()).to.equal(PIECE_PHONEMES);
    expect(piecePhonemeLimit(4)).to.equal(PIECE_PHONEMES);
    expect(piecePhonemeLimit(0.5)).to.equal(Math.floor(PIECE_PHONEMES / 2));
    expect(piecePhonemeLimit(0.25, 200)).to.equal(50);
  });

  it('counts phonemes as Piper makes ids: code points after NFD', () => {
    expect(phonemeCount('wˈʌn')).to.equal(4);
    expect(phonemeCount('é')).to.equal(2);
  });

  it('keeps a sentence within the limit whole', () => {
    expect(splitPhonemes('wˈʌn pɚsˈɛnt.', 40)).to.deep.equal(['wˈʌn pɚsˈɛnt.']);
  });

  it('cuts after a clause mark where there is one, else between words with a comma', () => {
    expect(splitPhonemes('ab cd, ef gh ij kl', 12)).to.deep.equal(['ab cd,', 'ef gh ij kl']);
    expect(splitPhonemes('ab cd ef gh ij kl mn', 12)).to.deep.equal(['ab cd ef gh,', 'ij kl mn']);
  });

  it('cuts a word longer than a piece between phonemes, never before a combining mark', () => {
    const pieces = splitPhonemes('abcdefghij', 4);
    expect(pieces.join('')).to.equal('abcdefghij');
    for (const piece of pieces) expect(phonemeCount(piece)).to.be.at.most(4);
    expect(splitPhonemes('abn\u0329d', 4)).to.deep.equal(['ab', 'n\u0329d']);
  });

  it('bounds every piece of "1% 1% …" and loses no word', () => {
    const phonemes = Array.from({ length: 400 }, () => 'wˈʌn pɚsˈɛnt').join(' ');
    const limit = piecePhonemeLimit(0.25);
    const pieces = splitPhonemes(phonemes, limit);
    expect(pieces.length).to.be.greaterThan(40);
    for (const piece of pieces) expect(phonemeCount(piece)).to.be.at.most(limit);
    // Cut near the limit, not into many small runs (the last is what is left).
    for (const piece of pieces.slice(0, -1)) expect(phonemeCount(piece)).to.be.at.least(limit - 12);
    expect(pieces.join(' ').replaceAll(',', '')).to.equal(phonemes);
  });
});
