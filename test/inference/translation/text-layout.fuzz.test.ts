/**
 * layoutText on random text: the units are trimmed and non-empty, and putting them back
 * untranslated gives the text back (exactly for whole lines; up to blanks when lines are split
 * into sentences and cut). FUZZ_RUNS scales the number of cases.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { layoutText } from '../../../src/inference/translation/text-layout.js';
import { fuzzRuns } from '../../helpers/fuzz-runs.js';

const piece = fc.oneof(
  fc.constantFrom(' ', '  ', '\t', '\u00a0', '\u2028', '\n', '\r', '\r\n', '\n\n', '. ', '! ', '? ', '。', '"', '»', ')'),
  fc.constantFrom('Dr.', 'e.g.', 'J.', 'The', 'dog', 'it', '5', '3.5', '¿Qué', '中文'),
  fc.string({ unit: 'binary', maxLength: 5 }),
);
const text = fc.array(piece, { maxLength: 40 }).map((pieces) => pieces.join(''));

describe('layoutText on random text (property)', () => {
  it('gives whole lines back exactly when nothing is translated', () => {
    fc.assert(
      fc.property(text, (input) => {
        const layout = layoutText(input, { sentences: false });
        for (const unit of layout.units) expect(unit).to.equal(unit.trim()).and.not.equal('');
        expect(layout.rebuild(layout.units)).to.equal(input);
      }),
      { numRuns: fuzzRuns(300) },
    );
  });

  it('keeps every non-blank character, in order, when lines are split into sentences and cut', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 30 }), (input, maxUnitChars) => {
        const layout = layoutText(input, { sentences: true, maxUnitChars });
        for (const unit of layout.units) expect(unit).to.equal(unit.trim()).and.not.equal('');
        expect(layout.rebuild(layout.units).replace(/\s/g, '')).to.equal(input.replace(/\s/g, ''));
      }),
      { numRuns: fuzzRuns(300) },
    );
  });
});
