import { expect } from 'chai';
import { existsSync } from 'node:fs';
import type { Manifest } from '../../src/inference/manifest.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rawRequest } from '../helpers/raw-http.js';
import { bearer, createTestApp, TEST_API_KEY, type TestApp } from '../helpers/test-app.js';

const HAS_APERTIUM = existsSync('/usr/share/apertium/modes/eng-spa.mode');
const MANIFEST: Manifest = {
  models: [
    {
      id: 'apertium-xxx-yyy',
      task: 'translation',
      engine: 'apertium',
      description: 'absent pair',
      license: 'GPL-3.0',
      options: { pair: 'xxx-yyy', source: 'xx', target: 'yy' },
    },
    {
      id: 'apertium-eng-spa',
      task: 'translation',
      engine: 'apertium',
      description: 'Debian pair',
      license: 'GPL-3.0',
      options: { pair: 'eng-spa', source: 'en', target: 'es' },
    },
  ],
};

describe('LibreTranslate API', () => {
  let app: TestApp;
  before(async () => {
    app = await createTestApp({ manifest: MANIFEST });
  });
  after(() => app.close());

  it('needs a key: api_key in the body or query, or Bearer; errors as {"error": "…"}', async () => {
    const missing = await app.request.post('/translate').send({ q: 'Hello', source: 'en', target: 'es' });
    expect(missing.status).to.equal(400);
    expect(missing.body.error).to.match(/API key/);
    const wrong = await app.request.post('/translate').send({ q: 'Hello', source: 'en', target: 'es', api_key: 'not-a-key-0123456789' });
    expect(wrong.status).to.equal(403);
    expect(wrong.body).to.deep.equal({ error: 'Invalid API key' });
    // npm `libretranslate` sends its key as `apiKey`.
    const camel = await app.request.post('/translate').send({ q: 'Hello', source: 'en', target: 'es', apiKey: 'not-a-key-0123456789' });
    expect(camel.status).to.equal(403);
  });

  it('answers /languages without a key, as LibreTranslate does (npm `libretranslate` asks it keyless)', async () => {
    expect((await app.request.get('/languages')).status).to.equal(200);
    // libretranslatepy: a GET with a url-encoded body carrying its api_key
    expect((await app.request.get('/languages').type('form').send({ api_key: TEST_API_KEY })).status).to.equal(200);
    expect((await app.request.get(`/languages?api_key=${TEST_API_KEY}`)).status).to.equal(200);
    expect((await app.request.get('/languages').set('Authorization', bearer())).status).to.equal(200);
    expect((await app.request.post('/languages').type('form').send({ api_key: TEST_API_KEY })).status).to.equal(200);
  });

  it('answers validation errors in LibreTranslate wording and shape', async () => {
    const noQ = await app.request.post('/translate').set('Authorization', bearer()).send({ source: 'en', target: 'es' });
    expect(noQ.status).to.equal(400);
    expect(noQ.body).to.deep.equal({ error: 'Invalid request: missing q parameter' });
    const html = await app.request.post('/translate').set('Authorization', bearer()).send({ q: '<b>x</b>', source: 'en', target: 'es', format: 'html' });
    expect(html.body.error).to.match(/html format is not supported/);
    const xml = await app.request.post('/translate').set('Authorization', bearer()).set('Content-Type', 'text/xml').send('<q/>');
    expect(xml.status).to.equal(415);
    expect(xml.body.error).to.be.a('string');
    const tooMany = await app.request
      .post('/translate')
      .set('Authorization', bearer())
      .send({ q: Array(65).fill('a'), source: 'en', target: 'es' });
    expect(tooMany.status).to.equal(400);
  });

  it("serves GET /spec, without a key: this API's part of the OpenAPI document", async () => {
    const res = await app.request.get('/spec');
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.match(/^application\/json/);
    expect(res.body.openapi).to.equal('3.1.0');
    expect(Object.keys(res.body.paths).sort()).to.deep.equal(['/detect', '/languages', '/spec', '/translate']);
    expect(res.body.paths['/translate'].post.requestBody.content).to.have.keys('application/json', 'application/x-www-form-urlencoded');
  });

  it('lists only installed pairs under /languages', async function () {
    if (!HAS_APERTIUM) this.skip();
    const res = await app.request.get('/languages').set('Authorization', bearer());
    expect(res.body).to.deep.equal([{ code: 'en', name: 'English', targets: ['es'] }]);
  });

  it('detects languages with a confidence in percent', async () => {
    const res = await app.request.post('/detect').type('form').send({ q: 'El perro es muy grande y la casa también', api_key: TEST_API_KEY });
    expect(res.status).to.equal(200);
    expect(res.body[0]).to.deep.include({ language: 'es' });
    expect(res.body[0].confidence).to.be.within(50, 100);
  });

  it('refuses form escapes that are not UTF-8 with a 400 naming the field, on /translate and /detect', async () => {
    for (const [path, body, field] of [
      ['/translate', 'q=the%20dog%ED%A0%80&source=en&target=es', 'q'],
      ['/translate', 'q=the%20dog&source=en%FF&target=es', 'source'],
      ['/translate', 'q[]=ok&q[]=%C3%28&source=en&target=es', 'q[]'],
      ['/detect', 'q=perro%80', 'q'],
      ['/detect', 'q%ED%A0%80=perro', 'q%ED%A0%80'],
    ] as const) {
      const res = await app.request.post(path).set('Authorization', bearer()).type('form').send(body);
      expect(res.status, body).to.equal(400);
      expect(res.body, body).to.have.keys('error');
      expect(res.body.error, body).to.match(new RegExp(`^"${field.replace(/[[\]]/g, '\\$&')}" is not valid Unicode: its percent-encoded bytes %`));
    }
    // Valid escapes (UTF-8, `+`) decode, and a `%` that starts no escape is a literal one.
    const valid = await app.request.post('/detect').set('Authorization', bearer()).type('form').send('q=El+perro+es+muy+grande+y+la+casa+tambi%C3%A9n+100%');
    expect(valid.status, valid.text).to.equal(200);
    expect(valid.body[0]).to.include({ language: 'es' });
  });

  describe('with the Debian apertium-eng-spa pair', () => {
    before(function () {
      if (!HAS_APERTIUM) this.skip();
    });

    it('translates a text, a batch, a form body, and source "auto"', async () => {
      const one = await app.request.post('/translate').send({ q: 'The dog.', source: 'en', target: 'es', api_key: TEST_API_KEY });
      expect(one.status).to.equal(200);
      expect(one.body).to.deep.equal({ translatedText: 'El perro.' });
      const batch = await app.request
        .post('/translate')
        .set('Authorization', bearer())
        .send({ q: ['The dog.', 'The house.'], source: 'en', target: 'es' });
      expect(batch.body).to.deep.equal({ translatedText: ['El perro.', 'La casa.'] });
      const form = await app.request.post('/translate').type('form').send({ q: 'The dog.', source: 'en', target: 'es', api_key: TEST_API_KEY });
      expect(form.body.translatedText).to.equal('El perro.');
      // Escaped by hand: decoded before translation, not passed on raw.
      const escaped = await app.request.post('/translate').set('Authorization', bearer()).type('form').send('q=the%20dog+100%&source=en&target=es');
      expect(escaped.body.translatedText).to.equal('El perro 100%');
      const auto = await app.request
        .post('/translate')
        .set('Authorization', bearer())
        .send({ q: 'The dog is in the house with the cat.', source: 'auto', target: 'es' });
      expect(auto.body.detectedLanguage).to.deep.include({ language: 'en' });
      expect(auto.body.translatedText).to.match(/perro/);
    });

    it('reads every value from the query string when there is no body, as deep-translator sends them', async () => {
      // deep-translator 1.11.4 (LibreTranslator.translate): requests.post(url + "translate", params={q, source, target, format, api_key}), no body.
      const server = createServer(app.app.callback());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = server.address() as AddressInfo;
        const res = await rawRequest(
          port,
          [
            `POST /translate?q=The+dog.&source=en&target=es&format=text&api_key=${TEST_API_KEY} HTTP/1.1`,
            `Host: 127.0.0.1:${port}`,
            'User-Agent: python-requests/2.32.3',
            'Accept-Encoding: gzip, deflate',
            'Accept: */*',
            'Content-Length: 0',
          ].join('\r\n'),
        );
        expect(res.status, res.body).to.equal(200);
        expect(JSON.parse(res.body)).to.deep.equal({ translatedText: 'El perro.' });
      } finally {
        server.close();
      }
    });

    it('takes the query string before the form, and only the body when it is JSON (LibreTranslate app.py)', async () => {
      const form = await app.request.post('/translate?target=es').type('form').send({ q: 'The dog.', source: 'en', target: 'xx', api_key: TEST_API_KEY });
      expect(form.status, form.text).to.equal(200);
      expect(form.body.translatedText).to.equal('El perro.');
      const json = await app.request.post('/translate?target=xx&q=ignored').set('Authorization', bearer()).send({ q: 'The dog.', source: 'en', target: 'es' });
      expect(json.body.translatedText).to.equal('El perro.');
      const detect = await app.request.post(`/detect?q=${encodeURIComponent('El perro es muy grande y la casa también')}&api_key=${TEST_API_KEY}`);
      expect(detect.status, detect.text).to.equal(200);
      expect(detect.body[0]).to.deep.include({ language: 'es' });
    });

    it('says which pair is not available, naming installed languages only', async () => {
      const res = await app.request.post('/translate').set('Authorization', bearer()).send({ q: 'El perro.', source: 'es', target: 'en' });
      expect(res.status).to.equal(400);
      expect(res.body.error).to.equal('English (en) is not available as a target language from Spanish (es)');
      const unknown = await app.request.post('/translate').set('Authorization', bearer()).send({ q: 'x', source: 'zz', target: 'es' });
      expect(unknown.body.error).to.equal('zz is not supported (installed languages: en, es)');
    });
  });
});
