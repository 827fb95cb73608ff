/**
 * Every 413 for a body over its limit says the limit and, where a setting raises it, the setting:
 * a client (or its operator) learns what to send or what to change.
 */
import { expect } from 'chai';
import { limitText, sizeText } from '../../src/http/body-parsers.js';
import { bearer, createTestApp, type TestApp } from '../helpers/test-app.js';

const MiB = 1024 * 1024;
/** A JSON body of about 2.4 MB, over the default 1 MB. */
const bigJson = () => JSON.stringify({ model: 'nope', query: 'x'.repeat(2.4 * MiB) });

describe('413 answers name their limit and the setting that raises it', () => {
  let app: TestApp;
  before(async () => {
    app = await createTestApp({ limits: { maxAudioBytes: MiB } });
  });
  after(() => app.close());

  it('writes sizes as the docs do', () => {
    expect([sizeText(MiB), sizeText(2.4 * MiB), sizeText(16 * 1024), sizeText(900)]).to.deep.equal(['1 MB', '2.4 MB', '16 KiB', '900 bytes']);
    expect(limitText(MiB, 'MAX_JSON_MB')).to.equal("the limit of 1 MB (the server's MAX_JSON_MB setting raises it)");
  });

  it('a JSON body on /v1 (JSON error), the users API (plain text) and LibreTranslate (its own shape)', async () => {
    const expected = "The body is 2.4 MB, over the limit of 1 MB (the server's MAX_JSON_MB setting raises it)";
    const v1 = await app.request.post('/v1/classifications').set('Authorization', bearer()).set('Content-Type', 'application/json').send(bigJson());
    expect(v1.status).to.equal(413);
    expect(v1.body.error).to.include({ code: 'payload_too_large', message: expected });
    const users = await app.request.post('/users').set('Content-Type', 'application/json').send(bigJson());
    expect([users.status, users.text]).to.deep.equal([413, expected]);
    const form = await app.request
      .post('/translate')
      .set('Authorization', bearer())
      .type('form')
      .send(`q=${'x'.repeat(2.4 * MiB)}&source=en&target=es`);
    expect([form.status, form.body.error]).to.deep.equal([413, expected]);
  });

  it('a body sent in chunks, whose size is not known before the limit', async () => {
    const req = app.request.post('/v1/classifications').set('Authorization', bearer()).set('Content-Type', 'application/json');
    req.write(bigJson().slice(0, 0.6 * MiB));
    req.write(bigJson().slice(0, 0.6 * MiB));
    const res = await req;
    expect(res.status).to.equal(413);
    expect(res.body.error.message).to.equal("The body is larger than the limit of 1 MB (the server's MAX_JSON_MB setting raises it)");
  });

  it('audio, raw or multipart (MAX_AUDIO_MB)', async () => {
    const big = Buffer.alloc(MiB + 100);
    const raw = await app.request.post('/v1/audio/transcriptions?model=whisper-1').set('Authorization', bearer()).set('Content-Type', 'audio/mpeg').send(big);
    expect(raw.status).to.equal(413);
    expect(raw.body.error.message).to.equal("The body is 1048676 bytes, over the limit of 1 MB (the server's MAX_AUDIO_MB setting raises it)");
    const form = await app.request.post('/v1/audio/transcriptions').set('Authorization', bearer()).field('model', 'whisper-1').attach('file', big, 'big.mp3');
    expect(form.status).to.equal(413);
    expect(form.body.error.message).to.equal(`"file" is larger than the limit of 1 MB (the server's MAX_AUDIO_MB setting raises it)`);
  });

  it('a larger MAX_JSON_MB lets the same body through to validation', async () => {
    const roomy = await createTestApp({ limits: { maxJsonBytes: 3 * MiB } });
    try {
      const res = await roomy.request.post('/v1/classifications').set('Authorization', bearer()).set('Content-Type', 'application/json').send(bigJson());
      expect(res.status).to.equal(400);
    } finally {
      await roomy.close();
    }
  });
});
