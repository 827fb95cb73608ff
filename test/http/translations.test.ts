import { existsSync } from 'node:fs';
import { expect } from 'chai';
import type { Manifest } from '../../src/inference/manifest.js';
import { bearer, createTestApp, type TestApp } from '../helpers/test-app.js';
import { FIXTURE_MODELS, FIXTURE_MODELS_DIR } from '../helpers/fixture-models.js';

const HAS_APERTIUM = existsSync('/usr/share/apertium/modes/eng-spa.mode');

const MANIFEST: Manifest = {
  models: [
    FIXTURE_MODELS.marian,
    { id: 'nllb-random', task: 'translation', engine: 'transformers-translation', description: 'fixture', license: 'MIT', options: { family: 'nllb' } },
    { id: 'nllb-absent', task: 'translation', engine: 'transformers-translation', description: 'not installed', license: 'MIT', options: { family: 'nllb' } },
    {
      id: 'apertium-eng-spa',
      task: 'translation',
      engine: 'apertium',
      description: 'Debian pair',
      license: 'GPL-3.0',
      options: { pair: 'eng-spa', source: 'en', target: 'es' },
    },
    {
      id: 'apertium-xxx-yyy',
      task: 'translation',
      engine: 'apertium',
      description: 'absent pair',
      license: 'GPL-3.0',
      options: { pair: 'xxx-yyy', source: 'xx', target: 'yy' },
    },
  ],
};

describe('POST /v1/engines/{model}/translate', () => {
  let app: TestApp;
  before(async () => {
    app = await createTestApp({ manifest: MANIFEST, modelsDir: FIXTURE_MODELS_DIR });
  });
  after(() => app.close());

  const translate = (model: string, body: Record<string, unknown>, auth = bearer()) =>
    app.request
      .post(`/v1/engines/${model}/translate`)
      .set('Authorization', auth)
      .send({ model, ...body });

  const expectInvalid = (res: { status: number; body: { error?: { code?: string; message?: string } } }, pattern: RegExp) => {
    expect(res.status).to.equal(400);
    expect(res.body.error?.code).to.equal('invalid_request');
    expect(res.body.error?.message).to.match(pattern);
  };

  describe('apertium-eng-spa (Debian package, real translation)', () => {
    before(function () {
      if (!HAS_APERTIUM) {
        console.warn('    (skipped: apertium-eng-spa not installed; run: apt-get install apertium apertium-eng-spa)');
        this.skip();
      }
    });

    it('answers 200 {translation} with an English paragraph in Spanish, paragraph breaks kept', async () => {
      const res = await translate('apertium-eng-spa', {
        text: 'I have two cats and a dog. The house is very big.\n\nWe now have 4-month-old mice.',
        target_language: 'es',
      });
      expect(res.status).to.equal(200);
      expect(res.headers['content-type']).to.match(/^application\/json/);
      expect(Object.keys(res.body)).to.deep.equal(['translation']);
      expect(res.body.translation).to.equal('Tengo dos gatos y un perro. La casa es muy grande.\n\nAhora tenemos ratones de 4 meses.');
    });

    it("accepts LibreTranslate's body {q, source, target} (source auto or a code), the model from the path", async () => {
      for (const source of ['en', 'auto']) {
        const res = await app.request
          .post('/v1/engines/apertium-eng-spa/translate')
          .set('Authorization', bearer())
          .send({ q: 'I have two cats and a dog.', source, target: 'es', format: 'text' });
        expect(res.status, res.text).to.equal(200);
        expect(res.body).to.deep.equal({ translation: 'Tengo dos gatos y un perro.' });
      }
      const missing = await app.request.post('/v1/engines/apertium-eng-spa/translate').set('Authorization', bearer()).send({ q: 'Hello', source: 'en' });
      expectInvalid(missing, /"target" is required/);
      const otherModel = await app.request
        .post('/v1/engines/apertium-eng-spa/translate')
        .set('Authorization', bearer())
        .send({ q: 'Hello', source: 'en', target: 'es', model: 'marian-en-es-random' });
      expectInvalid(otherModel, /must equal the model in the path/);
    });

    it('accepts a regional or three-letter target code (es-ES, spa) and a matching source_language', async () => {
      for (const target of ['es-ES', 'spa', 'ES']) {
        const res = await translate('apertium-eng-spa', { text: 'The dog.', target_language: target, source_language: 'en' });
        expect(res.status, target).to.equal(200);
        expect(res.body.translation).to.equal('El perro.');
      }
    });

    it('answers 400 listing the supported codes for an unsupported target_language', async () => {
      const res = await translate('apertium-eng-spa', { text: 'The dog.', target_language: 'fr' });
      expectInvalid(res, /"target_language" fr is not supported by apertium-eng-spa; supported: es$/);
    });

    it('answers 400 when source_language differs from the pair', async () => {
      const res = await translate('apertium-eng-spa', { text: 'Le chien.', target_language: 'es', source_language: 'fr' });
      expectInvalid(res, /"source_language" fr is not supported.*supported: en$/);
    });

    it('answers concurrent requests each with its own translation', async () => {
      const words: [string, string][] = [
        ['dog', 'perro'],
        ['cat', 'gato'],
        ['house', 'casa'],
        ['book', 'libro'],
      ];
      const responses = await Promise.all(words.map(([word]) => translate('apertium-eng-spa', { text: `The ${word}.`, target_language: 'es' })));
      responses.forEach((res, index) => expect(res.body.translation).to.include(words[index]?.[1]));
    });
  });

  describe('transformers.js fixtures (random weights, real pipelines)', () => {
    it('marian: 200 {translation} as a non-empty string', async () => {
      const res = await translate('marian-en-es-random', { text: 'The world is new.', target_language: 'es' });
      expect(res.status).to.equal(200);
      expect(Object.keys(res.body)).to.deep.equal(['translation']);
      expect(res.body.translation).to.be.a('string').and.not.equal('');
    });

    it('nllb: 200 for a mapped target such as zh, with or without source_language', async () => {
      for (const body of [{ source_language: 'en' }, {}]) {
        const res = await translate('nllb-random', { text: 'The house is new.', target_language: 'zh', ...body });
        expect(res.status).to.equal(200);
        expect(res.body.translation).to.be.a('string');
      }
    });

    it('nllb: 400 listing the supported codes for an unknown target', async () => {
      const res = await translate('nllb-random', { text: 'Hello.', target_language: 'xx' });
      expectInvalid(res, /"target_language" xx is not supported by nllb-random; supported: af, am, ar/);
    });

    it('nllb: 400 asking for source_language when it cannot be detected', async () => {
      const res = await translate('nllb-random', { text: '12345 !!!', target_language: 'es' });
      expectInvalid(res, /source_language/);
    });
  });

  describe('validation and errors', () => {
    it('400 when the body model differs from the path model', async () => {
      const res = await app.request
        .post('/v1/engines/marian-en-es-random/translate')
        .set('Authorization', bearer())
        .send({ model: 'nllb-random', text: 'Hello.', target_language: 'es' });
      expectInvalid(res, /must equal the model in the path/);
    });

    it('400 for missing, empty or non-string text', async () => {
      expectInvalid(await translate('marian-en-es-random', { target_language: 'es' }), /"text" is required/);
      expectInvalid(await translate('marian-en-es-random', { text: '   ', target_language: 'es' }), /"text" must not be empty/);
      expectInvalid(await translate('marian-en-es-random', { text: 5, target_language: 'es' }), /"text" must be a string/);
    });

    it('400 for text over the configured limit, naming the limit', async () => {
      const limit = app.config.limits.maxTranslationChars;
      const res = await translate('marian-en-es-random', { text: 'a'.repeat(limit + 1), target_language: 'es' });
      expectInvalid(res, new RegExp(`the limit is ${limit}`));
    });

    it('400 for a missing or malformed target_language', async () => {
      expectInvalid(await translate('marian-en-es-random', { text: 'Hi.' }), /"target_language" is required/);
      expectInvalid(await translate('marian-en-es-random', { text: 'Hi.', target_language: 'español!' }), /short language code/);
    });

    it('404 for an unknown model, listing the translation models', async () => {
      const res = await translate('nope', { text: 'Hi.', target_language: 'es' });
      expect(res.status).to.equal(404);
      expect(res.body.error.code).to.equal('model_not_found');
      expect(res.body.error.message).to.include('marian-en-es-random');
    });

    it('503 naming the install command when the model is not installed', async () => {
      const absent = await translate('nllb-absent', { text: 'Hi.', target_language: 'es' });
      expect(absent.status).to.equal(503);
      expect(absent.body.error.code).to.equal('model_not_installed');
      const pair = await translate('apertium-xxx-yyy', { text: 'Hi.', target_language: 'yy' });
      expect(pair.status).to.equal(503);
      expect(pair.body.error.message).to.include('apt-get install apertium apertium-xxx-yyy');
    });

    it('401 without a valid API key', async () => {
      const missing = await app.request
        .post('/v1/engines/marian-en-es-random/translate')
        .send({ model: 'marian-en-es-random', text: 'Hi.', target_language: 'es' });
      expect(missing.status).to.equal(401);
      const wrong = await translate('marian-en-es-random', { text: 'Hi.', target_language: 'es' }, 'Bearer wrong-key-0000000000000');
      expect(wrong.status).to.equal(401);
    });
  });
});
