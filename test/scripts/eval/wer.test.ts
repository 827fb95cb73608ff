import { expect } from 'chai';
import { corpusWer, wordErrors } from '../../../scripts/eval/lib/wer.js';
import { integerToWords, normalizeTranscript } from '../../../scripts/eval/lib/normalize-transcript.js';

describe('scripts/eval/lib/wer', () => {
  it('is zero for identical word lists', () => {
    expect(wordErrors(['a', 'b'], ['a', 'b'])).to.include({ wer: 0, referenceWords: 2 });
  });

  it('counts substitutions, deletions and insertions separately', () => {
    const r = wordErrors('the cat sat on the mat'.split(' '), 'the bat sat on the mat today'.split(' '));
    expect(r).to.include({ substitutions: 1, deletions: 0, insertions: 1, referenceWords: 6 });
    expect(r.wer).to.equal(2 / 6);
    expect(wordErrors(['a', 'b', 'c'], ['a', 'c'])).to.include({ substitutions: 0, deletions: 1, insertions: 0 });
  });

  it('handles empty sides', () => {
    expect(wordErrors([], []).wer).to.equal(0);
    expect(wordErrors(['a', 'b'], []).wer).to.equal(1);
    expect(wordErrors([], ['a']).insertions).to.equal(1);
  });

  it('pools errors over words for the corpus rate', () => {
    const a = wordErrors(['a'], ['b']);
    const b = wordErrors(['a', 'b', 'c'], ['a', 'b', 'c']);
    expect(corpusWer([a, b])).to.equal(0.25);
  });
});

describe('scripts/eval/lib/normalize-transcript', () => {
  it('lower-cases and strips punctuation, keeping word boundaries', () => {
    expect(normalizeTranscript('And so, my fellow Americans: ask not!')).to.deep.equal(['and', 'so', 'my', 'fellow', 'americans', 'ask', 'not']);
  });

  it('spells numbers the way the references do', () => {
    expect(normalizeTranscript('Go forward 10 meters')).to.deep.equal(['go', 'forward', 'ten', 'meters']);
    expect(integerToWords(1961)).to.equal('one thousand nine hundred sixty one');
    expect(normalizeTranscript('2.5 and 1,200').join(' ')).to.equal('two point five and one thousand two hundred');
  });

  it('splits hyphenated words, drops apostrophes and expands Mr.', () => {
    expect(normalizeTranscript("Mr. Dashwood wasn't ill-disposed").join(' ')).to.equal('mister dashwood wasnt ill disposed');
  });
});
