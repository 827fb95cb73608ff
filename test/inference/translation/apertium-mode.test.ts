import { expect } from 'chai';
import { parseMode } from '../../../src/inference/translation/apertium-mode.js';

describe('parseMode', () => {
  const mode = "lt-proc '/d/eng-spa.automorf.bin' | apertium-tagger -g $2 '/d/eng-spa.prob' | vislcg3 -g x.rlx | lt-proc -z $1 '/d/eng-spa.autogen.bin'";

  it('splits stages, unquotes paths and turns on null-flush mode (-z) where supported', () => {
    expect(parseMode(mode)).to.deep.equal([
      ['lt-proc', '-z', '/d/eng-spa.automorf.bin'],
      ['apertium-tagger', '-z', '-g', '/d/eng-spa.prob'],
      ['vislcg3', '-g', 'x.rlx'],
      ['lt-proc', '-z', '-n', '/d/eng-spa.autogen.bin'],
    ]);
  });

  it('keeps unknown-word marks when asked ($1 → -g)', () => {
    expect(parseMode(mode, { markUnknown: true })[3]).to.deep.equal(['lt-proc', '-z', '-g', '/d/eng-spa.autogen.bin']);
  });

  it('rejects an empty or unbalanced mode', () => {
    expect(() => parseMode('')).to.throw(/not a pipeline/);
    expect(() => parseMode("lt-proc 'x")).to.throw(/unbalanced/);
  });
});
