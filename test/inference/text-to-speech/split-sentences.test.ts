import { expect } from 'chai';
import { splitFirstClause, splitSentences } from '../../../src/inference/text-to-speech/split-sentences.js';

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

describe('splitFirstClause', () => {
  it('splits a long sentence after a short first clause', () => {
    expect(splitFirstClause('Henry V, Part II, Scene IV, I believe, is V I Lenin not Charles I.')).to.deep.equal([
      'Henry V,',
      'Part II, Scene IV, I believe, is V I Lenin not Charles I.',
    ]);
  });

  it('leaves short sentences, sentences without a clause mark and long first clauses alone', () => {
    expect(splitFirstClause('Yes, thanks.')).to.deep.equal(['Yes, thanks.']);
    const noMark = 'The birch canoe slid on the smooth planks and drifted slowly down the river.';
    expect(splitFirstClause(noMark)).to.deep.equal([noMark]);
    const longHead = 'The birch canoe slid on the smooth planks and drifted slowly, down the river.';
    expect(splitFirstClause(longHead)).to.deep.equal([longHead]);
  });
});
