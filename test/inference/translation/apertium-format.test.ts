import { expect } from 'chai';
import { deformat, reformat } from '../../../src/inference/translation/apertium-format.js';

describe('Apertium stream formatting', () => {
  it('escapes every stream-format character and ends the chunk with a superblank', () => {
    expect(deformat('a [b] ^c$ d/e \\ @f <g> {h} *i #j')).to.equal(
      'a \\[b\\] \\^c\\$ d\\/e \\\\ \\@f \\<g\\> \\{h\\} \\*i \\#j[]',
    );
  });

  it('protects "~" (a post-generation mark) inside a superblank, and gives it back', () => {
    expect(deformat('a ~ b')).to.equal('a [~] b[]');
    expect(reformat('a [~] b[]')).to.equal('a ~ b');
  });

  it('removes NULs and folds blanks', () => {
    expect(deformat(' one\0two \t three ')).to.equal('one two three[]');
  });

  it('spaces number-word compounds but leaves scores and names alone', () => {
    expect(deformat('4-month-old mice, a 10-km race')).to.equal('4 month old mice, a 10 km race[]');
    expect(deformat('won 2-1 after COVID-19')).to.equal('won 2-1 after COVID-19[]');
  });

  it('unescapes, drops superblanks and tidies the blanks dropped words leave', () => {
    expect(reformat(' Dos \\[x\\] gatos ,  dijo.[]')).to.equal('Dos [x] gatos, dijo.');
    expect(reformat('a\\/b \\\\ c[]')).to.equal('a/b \\ c');
  });

  it('round-trips text that needs no translation', () => {
    const text = 'Price: $5 [approx.] at 50% off, see a/b @ <x> {y} ~z';
    expect(reformat(deformat(text))).to.equal(text);
  });
});
