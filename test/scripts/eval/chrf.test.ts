import { expect } from 'chai';
import { corpusChrf, sentenceChrf } from '../../../scripts/eval/lib/chrf.js';

// Expected values computed with sacrebleu 2.x CHRF() defaults (char order 6, β 2, no word n-grams).
describe('scripts/eval/lib/chrf', () => {
  it('matches sacrebleu on a small corpus', () => {
    const score = corpusChrf(['the cat sat on the mat', 'Hola mundo, ¿qué tal?'], ['the cat is on the mat', 'Hola a todo el mundo, ¿qué tal?']);
    expect(score).to.be.closeTo(62.85946, 1e-4);
  });

  it('matches sacrebleu on one sentence, and is 100 for identical and 0 for disjoint text', () => {
    expect(sentenceChrf('Dos gatos', 'Dos perros')).to.be.closeTo(18.33136, 1e-4);
    expect(sentenceChrf('Dos  gatos', 'Dosgatos')).to.equal(100);
    expect(corpusChrf(['abc'], ['xyz'])).to.equal(0);
  });

  it('refuses mismatched lengths', () => {
    expect(() => corpusChrf(['a'], [])).to.throw(/1 hypotheses but 0 references/);
  });
});
