import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { ManifestEntry } from '../../../src/inference/manifest.js';
import { M2M100_CODES, NLLB_CODES } from '../../../src/inference/translation/language-codes.js';
import { transformersTranslationEngine } from '../../../src/inference/translation/transformers-translation-engine.js';
import type { Translator } from '../../../src/inference/types.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/models/', import.meta.url));
const context = (id: string) => ({ modelDir: `${FIXTURES}${id}`, modelsDir: FIXTURES });
const entry = (id: string, options: Record<string, unknown>): ManifestEntry => ({
  id,
  task: 'translation',
  engine: 'transformers-translation',
  description: 'fixture',
  license: 'MIT',
  options,
});

describe('transformers-translation engine (random-weight fixtures)', () => {
  describe('Marian pair (marian-en-es-random)', () => {
    let translator: Translator;
    before(async () => {
      translator = await transformersTranslationEngine.load(
        entry('marian-en-es-random', { family: 'marian', source: 'en', target: 'es' }),
        context('marian-en-es-random'),
      );
    });
    after(() => translator?.dispose());

    it('offers exactly its pair', () => {
      expect(translator.targetLanguages).to.deep.equal(['es']);
      expect(translator.sourceLanguages).to.deep.equal(['en']);
    });

    it('runs the real pipeline and keeps paragraph breaks', async () => {
      const text = 'The first sentence. The second one.\n\nA new paragraph.';
      const output = await translator.translate(text, { targetLanguage: 'es' });
      const paragraphs = output.split('\n\n');
      expect(paragraphs).to.have.length(2);
      for (const paragraph of paragraphs) expect(paragraph.trim()).not.to.equal('');
    });

    it('is deterministic (greedy decoding) and batches give the same result as one-by-one', async () => {
      const one = await translator.translate('The world is new.', { targetLanguage: 'es' });
      const many = await translator.translate(`The world is new. ${'One more sentence. '.repeat(10)}`, { targetLanguage: 'es' });
      expect(many.startsWith(one)).to.equal(true);
    });

    it("answers with a live signal, and rejects with the signal's reason when the caller gives up while others still answer", async () => {
      const kept = new AbortController();
      expect(await translator.translate('The day.', { targetLanguage: 'es', signal: kept.signal })).to.be.a('string');
      const controller = new AbortController();
      const reason = new Error('client went away');
      const abandoned = translator
        .translate('The year was new. '.repeat(20), { targetLanguage: 'es', signal: controller.signal })
        .catch((caught: unknown) => caught);
      const other = translator.translate('They have one.', { targetLanguage: 'es' });
      controller.abort(reason);
      expect(await abandoned).to.equal(reason);
      expect(await other).to.be.a('string');
    });

    it('answers concurrent calls without mixing them up', async () => {
      const texts = ['The day.', 'The year was new.', 'They have one.'];
      const alone = [];
      for (const text of texts) alone.push(await translator.translate(text, { targetLanguage: 'es' }));
      const together = await Promise.all(texts.map((text) => translator.translate(text, { targetLanguage: 'es' })));
      expect(together).to.deep.equal(alone);
    });
  });

  describe('NLLB (nllb-random)', () => {
    let translator: Translator;
    before(async () => {
      translator = await transformersTranslationEngine.load(entry('nllb-random', { family: 'nllb', batchSize: 2 }), context('nllb-random'));
    });
    after(() => translator?.dispose());

    it('offers every mapped short code (all are in the tokenizer)', () => {
      expect([...translator.targetLanguages].sort()).to.deep.equal(Object.keys(NLLB_CODES).sort());
    });

    it('translates with an explicit or a detected source language', async () => {
      const explicit = await translator.translate('Hello world.', { targetLanguage: 'fr', sourceLanguage: 'en' });
      const detected = await translator.translate('Hello world.', { targetLanguage: 'fr' });
      expect(explicit).to.be.a('string').and.not.equal('');
      // "Hello" is an English stopword, so detection picks en and the output is the same.
      expect(detected).to.equal(explicit);
    });

    it('uses the target language token (different targets give different output)', async () => {
      const french = await translator.translate('The house is new.', { targetLanguage: 'fr', sourceLanguage: 'en' });
      const chinese = await translator.translate('The house is new.', { targetLanguage: 'zh', sourceLanguage: 'en' });
      expect(french).not.to.equal(chinese);
    });

    it('asks for source_language when it cannot detect one', async () => {
      await translator.translate('Xyzzy plugh.', { targetLanguage: 'fr' }).then(
        () => expect.fail('should refuse'),
        (error: Error & { status?: number }) => {
          expect(error.status).to.equal(400);
          expect(error.message).to.match(/source_language/);
        },
      );
    });
  });

  describe('M2M100 (m2m100-random, its __xx__ language tokens)', () => {
    let translator: Translator;
    before(async () => {
      translator = await transformersTranslationEngine.load(entry('m2m100-random', { family: 'm2m100', dtype: 'q8' }), context('m2m100-random'));
    });
    after(() => translator?.dispose());

    it("offers the 100 languages of facebook/m2m100_418M, read from the tokenizer's __xx__ tokens", () => {
      expect([...translator.targetLanguages].sort()).to.deep.equal(Object.keys(M2M100_CODES).sort());
    });

    it('forces the target language token (different targets give different output)', async () => {
      const french = await translator.translate('The house is new.', { targetLanguage: 'fr', sourceLanguage: 'en' });
      const chinese = await translator.translate('The house is new.', { targetLanguage: 'zh', sourceLanguage: 'en' });
      expect(french).to.be.a('string').and.not.equal('');
      expect(french).not.to.equal(chinese);
    });
  });

  it('loads the int8 files for dtype "q8" (the hub layout of the manifest\'s opus-mt entries)', async () => {
    const id = 'marian-en-es-random';
    const translator = await transformersTranslationEngine.load(entry(id, { family: 'marian', source: 'en', target: 'es', dtype: 'q8' }), context(id));
    try {
      expect(await translator.translate('The world is new.', { targetLanguage: 'es' }))
        .to.be.a('string')
        .and.not.equal('');
    } finally {
      await translator.dispose();
    }
  });

  it('checks manifest options', () => {
    const translationOptions = (checked: ManifestEntry) => transformersTranslationEngine.options.read(checked);
    expect(() => translationOptions(entry('x', { family: 'nllb', dtype: 'q9' }))).to.throw(/dtype/);
    expect(() => translationOptions(entry('x', { family: 'gpt' }))).to.throw(/family/);
    expect(() => translationOptions(entry('x', { family: 'marian', source: 'en' }))).to.throw(/target/);
    expect(() => translationOptions(entry('x', { family: 'nllb', batchSize: 0 }))).to.throw(/batchSize/);
    expect(transformersTranslationEngine.describe?.(entry('x', { family: 'marian', source: 'en', target: 'es' }))).to.deep.equal({
      source_languages: ['en'],
      target_languages: ['es'],
    });
  });
});
