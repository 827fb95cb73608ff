import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Manifest } from '../../src/inference/manifest.js';
import { REPO_ROOT, SPEECH_DIR } from '../audio/audio-test-helpers.js';
import { bearer, createTestApp, type TestApp } from '../helpers/test-app.js';

const MODEL = 'whisper-tiny-random';
const MANIFEST: Manifest = {
  models: [{ id: MODEL, task: 'speech-to-text', engine: 'transformers-asr', description: 'random Whisper', license: 'MIT', options: { maxNewTokens: 4 } }],
};
const BOUNDARY = '----lisTestBoundary7MA4YWxkTrZu0gW';

type Part = { name: string; value: string | Buffer; filename?: string; contentType?: string };

/** A multipart body written part by part, so each header can be left out as real clients do. */
function multipart(parts: Part[], { close = true } = {}): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined) head += `; filename="${part.filename}"`;
    if (part.contentType) head += `\r\nContent-Type: ${part.contentType}`;
    chunks.push(Buffer.from(`${head}\r\n\r\n`), Buffer.from(part.value), Buffer.from('\r\n'));
  }
  if (close) chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

/** Entries formidable (koa-body's multipart parser) would leave in the temp folder. */
const uploadTempFiles = () => new Set(readdirSync(tmpdir()).filter((name) => /^[0-9a-f]{32}(\.\w+)?$/.test(name)));

describe('multipart audio uploads', () => {
  let app: TestApp;
  const audio = readFileSync(join(SPEECH_DIR, 'en_jfk.mp3'));
  before(async () => {
    app = await createTestApp({ manifest: MANIFEST, modelsDir: join(REPO_ROOT, 'test/fixtures/models') });
  });
  after(() => app.close());

  const post = (body: Buffer, path = '/v1/audio/transcriptions') =>
    app.request.post(path).set('Authorization', bearer()).set('Content-Type', `multipart/form-data; boundary=${BOUNDARY}`).send(body);

  it('accepts a file part without its own Content-Type (Python requests)', async () => {
    const res = await post(
      multipart([
        { name: 'model', value: MODEL },
        { name: 'file', value: audio, filename: 'jfk.mp3' },
      ]),
    );
    expect(res.status, res.text).to.equal(200);
    expect(res.body.text).to.be.a('string');
  });

  it('accepts the file before the fields, on both speech-to-text forms', async () => {
    for (const path of ['/v1/audio/transcriptions', '/v1/transcriptions']) {
      const res = await post(
        multipart([
          { name: 'file', value: audio, filename: 'a.mp3', contentType: 'audio/mpeg' },
          { name: 'model', value: MODEL },
        ]),
        path,
      );
      expect(res.status, `${path} ${res.text}`).to.equal(200);
    }
  });

  it('refuses a second file part with 400 and leaves no temp file behind', async () => {
    const before = uploadTempFiles();
    const res = await post(
      multipart([
        { name: 'model', value: MODEL },
        { name: 'file', value: audio, filename: 'a.mp3', contentType: 'audio/mpeg' },
        { name: 'file2', value: audio, filename: 'b.mp3', contentType: 'audio/mpeg' },
      ]),
    );
    expect(res.status).to.equal(400);
    expect(res.body.error.message).to.match(/exactly one file part|unexpected file part/);
    expect([...uploadTempFiles()].filter((name) => !before.has(name))).to.deep.equal([]);
  });

  it('refuses 100 fields with 413 and leaves no temp file behind', async () => {
    const before = uploadTempFiles();
    const fields = Array.from({ length: 100 }, (_, i) => ({ name: `f${i}`, value: 'x' }));
    const res = await post(multipart([{ name: 'file', value: audio, filename: 'a.mp3', contentType: 'audio/mpeg' }, ...fields]));
    expect(res.status).to.equal(413);
    expect(res.body.error.message).to.match(/too many form (fields|parts)/);
    expect([...uploadTempFiles()].filter((name) => !before.has(name))).to.deep.equal([]);
  });

  it("answers a truncated body with a message of ours, not the parser's", async () => {
    const res = await post(
      multipart(
        [
          { name: 'model', value: MODEL },
          { name: 'file', value: audio.subarray(0, 5000), filename: 'a.mp3' },
        ],
        { close: false },
      ),
    );
    expect(res.status).to.equal(400);
    expect(res.body.error.message).to.equal('the multipart/form-data body is malformed or incomplete');
  });

  it('explains a "file" sent as a text field, a missing boundary, and a file under another name', async () => {
    const asField = await post(
      multipart([
        { name: 'model', value: MODEL },
        { name: 'file', value: 'abc' },
      ]),
    );
    expect(asField.status).to.equal(400);
    expect(asField.body.error.message).to.match(/must be a file part/);
    const noBoundary = await app.request.post('/v1/audio/transcriptions').set('Authorization', bearer()).set('Content-Type', 'multipart/form-data').send('x');
    expect(noBoundary.status).to.equal(400);
    expect(noBoundary.body.error.message).to.match(/boundary/);
    const otherName = await post(
      multipart([
        { name: 'model', value: MODEL },
        { name: 'upload', value: audio, filename: 'a.mp3' },
      ]),
    );
    expect(otherName.status).to.equal(400);
    expect(otherName.body.error.message).to.match(/part named "file"/);
  });

  it('answers 413 for a file over the limit', async () => {
    const small = await createTestApp({ manifest: MANIFEST, modelsDir: join(REPO_ROOT, 'test/fixtures/models'), limits: { maxAudioBytes: 10_000 } });
    try {
      const res = await small.request
        .post('/v1/audio/transcriptions')
        .set('Authorization', bearer())
        .set('Content-Type', `multipart/form-data; boundary=${BOUNDARY}`)
        .send(
          multipart([
            { name: 'model', value: MODEL },
            { name: 'file', value: audio, filename: 'a.mp3' },
          ]),
        );
      expect(res.status).to.equal(413);
    } finally {
      await small.close();
    }
  });
});
