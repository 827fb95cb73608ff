/**
 * A lone UTF-16 surrogate (`"\ud800"` in JSON) is refused in every text field of every route, as
 * /v1 always refused it (validation.ts puts `x-well-formed` on every string a schema declares),
 * each answered in its own API's error shape. No model is loaded: validation comes first.
 */
import { expect } from 'chai';
import type { Manifest } from '../../src/inference/manifest.js';
import { NOT_INSTALLED_TEXT_MODELS } from '../helpers/not-installed-models.js';
import { bearer, createTestApp, type TestApp } from '../helpers/test-app.js';

/** Listed, not installed: the routes resolve them, and refuse the body before loading anything. */
const MANIFEST: Manifest = {
  models: [
    ...NOT_INSTALLED_TEXT_MODELS,
    {
      id: 'apertium-eng-spa',
      task: 'translation',
      engine: 'apertium',
      description: 'not installed',
      license: 'GPL-3.0',
      options: { pair: 'eng-spa', source: 'en', target: 'es' },
    },
    { id: 'whisper', task: 'speech-to-text', engine: 'transformers-asr', description: 'not installed', license: 'MIT' },
  ],
};
/** The JSON text `"\ud800"` as a client sends it: the escape, since UTF-8 cannot hold the unit itself. */
const LONE = '"\\ud800"';
const NAMES_IT = (field: string) => new RegExp(`^"${field.replace(/[[\]]/g, '\\$&')}" is not valid Unicode: it contains the unpaired surrogate U\\+D800$`);

describe('lone surrogates are refused on every route, in each API’s error shape', () => {
  let app: TestApp;
  before(async () => {
    app = await createTestApp({ manifest: MANIFEST });
  });
  after(() => app?.close());

  const postJson = (path: string, json: string) => app.request.post(path).set('Authorization', bearer()).set('Content-Type', 'application/json').send(json);

  it('arrives as a lone surrogate: JSON.stringify escapes it the same way', () => {
    expect(JSON.stringify('\ud800')).to.equal(LONE);
    expect(JSON.parse(LONE)).to.equal('\ud800');
  });

  it('TEI /embed, /predict and POST /: 400 {"error", "error_type": "Validation"} naming the field', async () => {
    const cases: [string, string, string][] = [
      ['/embed', `{"inputs": ${LONE}}`, 'inputs'],
      ['/embed', `{"inputs": ["fine", ${LONE}]}`, 'inputs[1]'],
      ['/predict', `{"inputs": ${LONE}}`, 'inputs'],
      ['/predict', `{"inputs": [${LONE}], "parameters": {"top_k": 1}}`, 'inputs[0]'],
      ['/?model=embedder', `{"inputs": ${LONE}}`, 'inputs'],
      ['/?model=classifier', `{"inputs": ["a${LONE.slice(1, -1)}b"]}`, 'inputs[0]'],
    ];
    for (const [path, body, field] of cases) {
      const answer = await postJson(path, body);
      expect(answer.status, `${path} ${body}`).to.equal(400);
      expect(answer.body.error, `${path} ${body}`).to.match(NAMES_IT(field));
      expect(answer.body.error_type).to.equal('Validation');
    }
  });

  it('LibreTranslate /translate and /detect: 400 {"error"} naming the field, from JSON and from forms', async () => {
    for (const [path, body, field] of [
      ['/translate', `{"q": ${LONE}, "source": "en", "target": "es"}`, 'q'],
      ['/translate', `{"q": ["ok", ${LONE}], "source": "en", "target": "es"}`, 'q[1]'],
      ['/translate', `{"q": "ok", "source": ${LONE}, "target": "es"}`, 'source'],
      ['/detect', `{"q": ${LONE}}`, 'q'],
    ] as const) {
      const answer = await postJson(path, body);
      expect(answer.status, body).to.equal(400);
      expect(answer.body, body).to.have.keys('error');
      expect(answer.body.error).to.match(NAMES_IT(field));
    }
    // Forms and query strings are percent-encoded UTF-8: the bytes of a surrogate are not UTF-8,
    // so a query string reads them as U+FFFD, and a form body refuses them naming the field.
    const query = await app.request.post('/detect?q=%ED%A0%80').set('Authorization', bearer());
    expect(query.status).to.equal(200);
    const form = await app.request.post('/detect').set('Authorization', bearer()).type('form').send('q=%ED%A0%80');
    expect(form.status).to.equal(400);
    expect(form.body.error).to.equal('"q" is not valid Unicode: its percent-encoded bytes %ED%A0%80 are not UTF-8');
  });

  it('/v1 JSON routes, as before, and multipart text fields, whatever charset a part declares', async () => {
    const embeddings = await postJson('/v1/embeddings', `{"model": "embedder", "input": ${LONE}}`);
    expect(embeddings.status).to.equal(400);
    expect(embeddings.body.error).to.include({ code: 'invalid_request' });
    expect(embeddings.body.error.message).to.match(NAMES_IT('input'));
    // A part may declare UTF-16, whose decoding keeps a lone surrogate: 0xD800 little-endian.
    const boundary = 'x-boundary';
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="prompt"\r\nContent-Type: text/plain; charset=utf-16le\r\n\r\n`),
      Buffer.from([0x00, 0xd8]),
      Buffer.from(`\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\nRIFF`),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const multipart = await app.request
      .post('/v1/audio/transcriptions')
      .set('Authorization', bearer())
      .set('Content-Type', `multipart/form-data; boundary=${boundary}`)
      .send(body);
    expect(multipart.status).to.equal(400);
    expect(multipart.body.error.message).to.match(NAMES_IT('prompt'));
  });

  it('users: 400 in plain text naming the field', async () => {
    const answer = await app.request.post('/users').set('Content-Type', 'application/json').send(`{"name": ${LONE}, "email": "a@b.org"}`);
    expect(answer.status).to.equal(400);
    expect(answer.text).to.match(NAMES_IT('name'));
  });
});
