import { expect } from 'chai';
import { deformat, MAX_RUN_CHARS, reformat } from '../../../src/inference/translation/apertium-format.js';

describe('Apertium stream formatting', () => {
  it('escapes every stream-format character and ends the chunk with a superblank', () => {
    expect(deformat('a [b] c$ d/e \\ @f <g> {h} *i #j')).to.equal('a \\[b\\] c\\$ d\\/e \\\\ \\@f \\<g\\> \\{h\\} \\*i \\#j[]');
  });

  it('carries "^" and "~" in superblanks, never as text a stage could misread, and gives them back', () => {
    // lrx-proc starts a word at any "^", escaped or not; lt-proc -p eats "~" even when escaped.
    expect(deformat('a ^ b~c')).to.equal('a [U+005E] b[U+007E]c[]');
    expect(deformat('^$^')).to.equal('[U+005E]\\$[U+005E][]');
    expect(reformat('Un [U+005E] b[U+007E]c[]')).to.equal('Un ^ b~c');
  });

  it('keeps user text that looks like a hidden-character superblank as text', () => {
    expect(deformat('[U+005E]')).to.equal('\\[U+005E\\][]');
    expect(reformat(deformat('[U+005E] [] [x]'))).to.equal('[U+005E] [] [x]');
  });

  it('turns NULs, control characters and lone surrogates into blanks, and folds blanks', () => {
    expect(deformat(' one\0two \t three ')).to.equal('one two three[]');
    expect(deformat('a\x01b\x1bc\x7fd\x85e')).to.equal('a b c d e[]');
    expect(deformat('x\ud800y\udc00z \ud83d\ude00')).to.equal('x y z \ud83d\ude00[]');
  });

  it('cuts runs longer than MAX_RUN_CHARS with empty superblanks, which reformat removes', () => {
    const word = 'a.'.repeat(MAX_RUN_CHARS);
    const chunk = deformat(`${word} ok`);
    expect(chunk).to.equal(`${'a.'.repeat(MAX_RUN_CHARS / 2)}[]${'a.'.repeat(MAX_RUN_CHARS / 2)} ok[]`);
    expect(reformat(chunk)).to.equal(`${word} ok`);
    // Code points, not UTF-16 units: an astral character is never split.
    expect(reformat(deformat('😀'.repeat(MAX_RUN_CHARS + 1)))).to.equal('😀'.repeat(MAX_RUN_CHARS + 1));
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
    const text = 'Price: $5 [approx.] at 50% off, see a/b @ <x> {y} ~z ^w # * \\';
    expect(reformat(deformat(text))).to.equal(text);
  });
});
