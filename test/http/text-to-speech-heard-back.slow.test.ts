/**
 * The real Piper voice's AAC and Opus, transcribed back by whisper-tiny.en (skipped unless
 * `npm run test-models` ran): the formats' round trip through real speech. In the slow suite: the
 * MP3 round trip (text-to-speech.test.ts) keeps one in `npm test`, and the formats' own checks
 * (stated rate, length, streaming) are text-to-speech-formats.test.ts.
 */
import { existsSync } from 'node:fs';
import { expect } from 'chai';
import { readManifest } from '../../src/inference/manifest.js';
import { expectHeardBackInOneOfTwo } from '../helpers/heard-back.js';
import { binary } from '../helpers/binary-body.js';
import { bearer, createTestApp, type TestApp } from '../helpers/test-app.js';

describe('Piper speech as AAC, transcribed back by whisper-tiny.en (needs `npm run test-models`)', function () {
  this.timeout(120_000);
  const modelsDir = new URL('../../models/', import.meta.url).pathname;
  const installed = ['piper-en_US-joe-medium', 'whisper-tiny.en'].every((id) => existsSync(`${modelsDir}${id}/.installed.json`));
  let app: TestApp;
  before(async function () {
    if (!installed) this.skip();
    app = await createTestApp({ manifest: await readManifest(`${modelsDir}models.json`), modelsDir });
  });
  after(() => app?.close());

  for (const format of ['aac', 'opus'] as const) {
    it(`${format} → the sentence (WER ≤ 0.2, as the MP3 round trip, in one of two renderings)`, async () => {
      const sentence = 'They were three hundred yards apart. The date was nearly eighteen years old.';
      await expectHeardBackInOneOfTwo(sentence, async () => {
        const speech = await app.request
          .post('/v1/audio/speech')
          .set('Authorization', bearer())
          .send({ model: 'piper-en_US-joe-medium', input: sentence, response_format: format })
          .buffer(true)
          .parse(binary);
        expect(speech.status).to.equal(200);
        const transcript = await app.request
          .post('/v1/audio/transcriptions')
          .set('Authorization', bearer())
          .field('model', 'whisper-tiny.en')
          .attach('file', speech.body as Buffer, { filename: `speech.${format}`, contentType: format === 'aac' ? 'audio/aac' : 'audio/ogg' });
        expect(transcript.status, transcript.text).to.equal(200);
        return transcript.body.text as string;
      });
    });
  }
});
