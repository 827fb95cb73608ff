import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { M2M100_CODES, NLLB_CODES, resolveLanguage } from '../../../src/inference/translation/language-codes.js';

/** The fixture tokenizer carries the real FLORES-200 list of NLLB-200 (from transformers). */
const nllbTokens = new Set<string>(
  JSON.parse(readFileSync(new URL('../../fixtures/models/nllb-random/tokenizer_config.json', import.meta.url), 'utf8')).additional_special_tokens,
);

describe('language codes', () => {
  it('the fixture tokenizer has the full NLLB-200 list', () => {
    expect(nllbTokens.size).to.equal(202);
  });

  for (const [short, code] of Object.entries(NLLB_CODES)) {
    it(`maps ${short} to an NLLB-200 language token (${code})`, () => {
      expect(nllbTokens.has(code), code).to.equal(true);
    });
  }

  it('maps every M2M100 language to itself (the model uses __xx__ tokens)', () => {
    expect(Object.keys(M2M100_CODES)).to.have.length(100);
    for (const [short, code] of Object.entries(M2M100_CODES)) expect(code).to.equal(short);
  });

  it('resolves region variants, three-letter codes and exact regional entries', () => {
    const supported = Object.keys(NLLB_CODES);
    expect(resolveLanguage('es-MX', supported)).to.equal('es');
    expect(resolveLanguage('pt_BR', supported)).to.equal('pt');
    expect(resolveLanguage('spa', supported)).to.equal('es');
    expect(resolveLanguage('zh-TW', supported)).to.equal('zh-tw');
    expect(resolveLanguage('ZH', supported)).to.equal('zh');
    expect(resolveLanguage('xx', supported)).to.equal(undefined);
    expect(resolveLanguage('en', ['es'])).to.equal(undefined);
  });
});
