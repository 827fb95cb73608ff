/**
 * Random text, heavy in the characters the Apertium stream format (or one of its stages) reads
 * as markup, through deformat()/reformat() and through the real Debian eng-spa pipeline: every
 * call resolves with a string, the words around the hostile text survive, the markup characters
 * come back as text, and the pipeline is never restarted. FUZZ_RUNS scales the number of cases.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { deformat, reformat } from '../../../src/inference/translation/apertium-format.js';
import { readModeFile } from '../../../src/inference/translation/apertium-mode.js';
import { ApertiumPipeline } from '../../../src/inference/translation/apertium-pipeline.js';
import { ApertiumTranslator } from '../../../src/inference/translation/apertium-translator.js';
import { fuzzRuns } from '../../helpers/fuzz-runs.js';
import { ENG_SPA_MODE, skipWithoutApertium } from './apertium-available.js';
import { count, MARKUP } from './apertium-markup.js';

const piece = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...MARKUP) },
  { weight: 2, arbitrary: fc.constantFrom(' ', '.', ',', '-', "'s", 'the', 'dog', 'e.g.', '5', '4-a', 'é', '😀', '中文') },
  { weight: 2, arbitrary: fc.constantFrom('\0', '\x01', '\x1b', '\x7f', '\x85', '\t', '\n', '\r\n', '\u2028', '\ufeff', '\ud800', '\udc00') },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 4 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 6 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('a.', 'x', '5', '^', '\\', '[', '@', '$'), fc.integer({ min: 100, max: 1200 }))
      .map(([unit, times]) => unit.repeat(times)),
  },
);
const hostileText = fc.array(piece, { maxLength: 12 }).map((pieces) => pieces.join(''));

/** Characters deformat() turns into blanks, and the blanks and hyphens it may add or fold. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters deformat() drops
const DROPPED = /[\0-\x08\x0e-\x1f\x7f-\x9f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|[\s\u00a0\-‐–]/g;

describe('Apertium stream formatting on random text (property)', () => {
  it('writes no character a stage could misread, and reformat() gives every other one back', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        const chunk = deformat(text);
        // Outside escapes, only our own superblanks: empty, or a hidden character's code point.
        const unescaped = chunk.replace(/\\[\s\S]/g, '');
        expect(unescaped.replace(/\[(U\+[0-9A-F]{4,6})?\]/g, '')).not.to.match(/[\0^~[\]$/@<>{}\\]/);
        expect(reformat(chunk).replace(DROPPED, '')).to.equal(text.replace(DROPPED, ''));
      }),
      { numRuns: fuzzRuns(500) },
    );
  });
});

describe('Apertium eng-spa on random hostile text (property)', () => {
  let pipeline: ApertiumPipeline;
  let translator: ApertiumTranslator;
  before(async function () {
    skipWithoutApertium(this);
    pipeline = new ApertiumPipeline({ commands: await readModeFile(ENG_SPA_MODE), name: 'eng-spa' });
    translator = new ApertiumTranslator({ modelId: 'apertium-eng-spa', pipeline, source: 'en', target: 'es' });
    await translator.translate('Hello.', { targetLanguage: 'es' });
  });
  after(() => translator?.dispose());

  it('answers every concurrent request with its own text, and never restarts the pipeline', async function () {
    this.timeout(0); // bounded by FUZZ_RUNS instead
    await fc.assert(
      fc.asyncProperty(fc.array(hostileText, { minLength: 1, maxLength: 6 }), async (hostile) => {
        const startsBefore = pipeline.starts;
        const texts = hostile.map((text, index) => `${7000 + index} Zorblax ${text} quenfir ${8000 + index}`);
        const outputs = await Promise.all(texts.map((text) => translator.translate(text, { targetLanguage: 'es' })));
        outputs.forEach((output, index) => {
          const text = texts[index] as string;
          expect(output, text).to.be.a('string');
          for (const word of [`${7000 + index}`, 'Zorblax', 'quenfir', `${8000 + index}`]) {
            expect(output, `${JSON.stringify(text)} → ${JSON.stringify(output)}`).to.include(word);
          }
          for (const char of MARKUP) {
            expect(count(output, char), `${char} in ${JSON.stringify(text)} → ${JSON.stringify(output)}`).to.equal(count(text, char));
          }
        });
        expect(pipeline.starts, 'pipeline restarts').to.equal(startsBefore);
      }),
      { numRuns: fuzzRuns(40) },
    );
  });
});
