import { expect } from 'chai';
import { splitFirstPiece, splitSentences } from '../../../src/inference/text-to-speech/split-sentences.js';

describe('splitSentences', () => {
  it('splits at sentence ends and keeps the terminators', () => {
    expect(splitSentences('The birch canoe slid. Glue the sheet! Is it blue? Yes.')).to.deep.equal([
      'The birch canoe slid.',
      'Glue the sheet!',
      'Is it blue?',
      'Yes.',
    ]);
  });

  it('does not split after titles, common abbreviations or initials', () => {
    expect(splitSentences("It's 14 St. Andrews St, where Dr. Jekyll has his office. J. Smith agrees.")).to.deep.equal([
      "It's 14 St. Andrews St, where Dr. Jekyll has his office.",
      'J. Smith agrees.',
    ]);
  });

  it('does not split at a period followed by a lower-case word, as espeak-ng does not', () => {
    expect(splitSentences('I used to work at I.B.M. but moved to the U.S. later in life. Then I left.')).to.deep.equal([
      'I used to work at I.B.M. but moved to the U.S. later in life.',
      'Then I left.',
    ]);
  });

  it('keeps decimals and closing quotes together', () => {
    expect(splitSentences('It rose 0.23 points. "Really?" she asked.')).to.deep.equal(['It rose 0.23 points.', '"Really?"', 'she asked.']);
  });

  it('treats line breaks as boundaries and drops pieces with nothing to say', () => {
    expect(splitSentences('First line\nSecond line\n\n...\n  ')).to.deep.equal(['First line', 'Second line']);
  });

  it('cuts an over-long sentence at clause marks, then spaces, within the limit', () => {
    const long = `${Array.from({ length: 30 }, (_, i) => `clause number ${i}`).join(', ')}.`;
    const parts = splitSentences(long, 100);
    expect(parts.length).to.be.greaterThan(1);
    for (const part of parts) expect(part.length).to.be.at.most(100);
    expect(parts.join(' ').replace(/\s+/g, ' ')).to.equal(long);
    expect(parts[0]).to.match(/,$/);
    const words = splitSentences('word '.repeat(100).trim(), 50);
    for (const part of words) expect(part.length).to.be.at.most(50);
  });
});

describe('splitFirstPiece', () => {
  it('cuts after a short first clause', () => {
    expect(splitFirstPiece('Henry V, Part II, Scene IV, I believe, is V I Lenin not Charles I.')).to.deep.equal([
      'Henry V,',
      'Part II, Scene IV, I believe, is V I Lenin not Charles I.',
    ]);
    expect(splitFirstPiece('Instead, he joined her; and they ate like two hungry children.')).to.deep.equal([
      'Instead, he joined her;',
      'and they ate like two hungry children.',
    ]);
  });

  it('without an early clause, cuts near the word count where a phrase begins, the first piece spoken as a clause', () => {
    expect(splitFirstPiece('The birch canoe slid on the smooth planks.')).to.deep.equal(['The birch canoe slid,', 'on the smooth planks.']);
    expect(splitFirstPiece('These days a chicken leg is a rare dish.')).to.deep.equal(['These days,', 'a chicken leg is a rare dish.']);
    expect(splitFirstPiece('These days a chicken leg is a rare dish.', { words: 4 })).to.deep.equal(['These days a chicken leg,', 'is a rare dish.']);
    expect(splitFirstPiece('What part of the United States is your home.', { words: 5 })).to.deep.equal(['What part of the United States,', 'is your home.']);
  });

  it('never ends the first piece on a word that belongs with the next one', () => {
    expect(splitFirstPiece('The $2.7 million in the budget will be spent at $1.27 a minute.')).to.deep.equal([
      'The $2.7 million,',
      'in the budget will be spent at $1.27 a minute.',
    ]);
    for (const sentence of [
      'It was the end of the road for them all.',
      'We saw Dr. Jekyll and Mr. Hyde at the opera.',
      'He met J. R. Smith at the old town hall.',
    ]) {
      const [head] = splitFirstPiece(sentence);
      expect(head).to.not.match(/\b(the|was|of|Dr\.|Mr\.|[A-Z]\.),?$/);
    }
  });

  it('keeps short sentences whole, and cuts only at clauses with `words: 0`', () => {
    expect(splitFirstPiece('Yes, thanks.')).to.deep.equal(['Yes, thanks.']);
    expect(splitFirstPiece('It is the aurora borealis.')).to.deep.equal(['It is the aurora borealis.']);
    const noMark = 'The birch canoe slid on the smooth planks and drifted slowly down the river.';
    expect(splitFirstPiece(noMark, { words: 0 })).to.deep.equal([noMark]);
    const longHead = 'The birch canoe slid on the smooth planks and drifted slowly, down the river.';
    expect(splitFirstPiece(longHead, { words: 0 })).to.deep.equal([longHead]);
  });

  it('loses no text (a word-boundary cut only adds its comma)', () => {
    const sentence = '  It is 14 St. Andrews St, where Dr. Jekyll has his office.';
    for (const words of [0, 2, 3, 4, 5, 6, 8]) expect(splitFirstPiece(sentence, { words }).join(' ')).to.equal(sentence.trim());
    const noClause = 'The birch canoe slid on the smooth planks and drifted slowly down the river.';
    for (const words of [2, 3, 4, 5, 6]) expect(splitFirstPiece(noClause, { words }).join(' ').replace(',', '')).to.equal(noClause);
  });
});
