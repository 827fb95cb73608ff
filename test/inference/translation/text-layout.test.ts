import { expect } from 'chai';
import { layoutText, splitSentences } from '../../../src/inference/translation/text-layout.js';

describe('splitSentences', () => {
  it('splits on terminal punctuation followed by a capitalised word', () => {
    expect(splitSentences('I came. I saw! Did I win? Yes.')).to.deep.equal(['I came.', 'I saw!', 'Did I win?', 'Yes.']);
  });

  it('keeps abbreviations, initials and decimals inside the sentence', () => {
    expect(splitSentences('Dr. Smith met J. R. Jones at 3.5 km. They talked.')).to.deep.equal(['Dr. Smith met J. R. Jones at 3.5 km.', 'They talked.']);
    expect(splitSentences('Apples, pears, etc. Are fruit.')).to.deep.equal(['Apples, pears, etc. Are fruit.']);
  });

  it('keeps closing quotes with their sentence', () => {
    expect(splitSentences('"We won," he said. "Again!" She laughed.')).to.deep.equal(['"We won," he said.', '"Again!"', 'She laughed.']);
  });

  it('does not split before a lower-case word', () => {
    expect(splitSentences('It costs 5 p. per item.')).to.deep.equal(['It costs 5 p. per item.']);
  });

  it('splits Chinese and Japanese full stops without blanks', () => {
    expect(splitSentences('今天很好。我们走吧！')).to.deep.equal(['今天很好。', '我们走吧！']);
  });

  it('starts a sentence after Spanish opening marks', () => {
    expect(splitSentences('Hola. ¿Qué tal? ¡Bien!')).to.deep.equal(['Hola.', '¿Qué tal?', '¡Bien!']);
  });
});

describe('layoutText', () => {
  const upper = (units: readonly string[]) => units.map((unit) => unit.toUpperCase());

  it('keeps paragraph breaks, blank lines and indentation around translated units', () => {
    const text = 'First one. Second one.\n\n  Indented line\r\nlast\n';
    const layout = layoutText(text, { sentences: true });
    expect(layout.units).to.deep.equal(['First one.', 'Second one.', 'Indented line', 'last']);
    expect(layout.rebuild(upper(layout.units))).to.equal('FIRST ONE. SECOND ONE.\n\n  INDENTED LINE\r\nLAST\n');
  });

  it('gives whole lines when sentences are not wanted', () => {
    const layout = layoutText('A b. C d.\nE f.', { sentences: false });
    expect(layout.units).to.deep.equal(['A b. C d.', 'E f.']);
  });

  it('has no units for blank text and gives it back unchanged', () => {
    const layout = layoutText(' \n\n ', { sentences: true });
    expect(layout.units).to.deep.equal([]);
    expect(layout.rebuild([])).to.equal(' \n\n ');
  });

  it('cuts over-long sentences at a clause boundary, never mid-word', () => {
    const sentence = `${'word '.repeat(30)}then, ${'more '.repeat(30)}end.`;
    const layout = layoutText(sentence, { sentences: true, maxUnitChars: 100 });
    expect(layout.units.length).to.be.greaterThan(1);
    for (const unit of layout.units) {
      expect(unit.length).to.be.at.most(100);
      expect(unit).to.match(/^\S.*\S$/);
    }
    expect(layout.rebuild(layout.units).replace(/\s+/g, ' ')).to.equal(sentence.replace(/\s+/g, ' '));
  });

  it('takes linear time over a long blank run inside a line', () => {
    // The lead/body/trail regex it replaced took seconds here, blocking the event loop.
    const text = `x${' \t\u00a0'.repeat(20_000)}y`;
    const started = performance.now();
    const layout = layoutText(text, { sentences: false });
    expect(performance.now() - started).to.be.below(300);
    expect(layout.units).to.deep.equal([text]);
  });

  it('refuses a translation count that does not match', () => {
    const layout = layoutText('One. Two.', { sentences: true });
    expect(() => layout.rebuild(['uno'])).to.throw(/expected 2/);
  });
});
