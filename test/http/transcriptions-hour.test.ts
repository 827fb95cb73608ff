/**
 * Hour-long uploads end to end, on the default limits: 60 minutes of MP3 and of WAV through
 * multipart and raw bodies, decoded in the ASR worker, filtered by Silero VAD (on by default past
 * 30 s) and answered; one frame more is a 413. Silence, so Whisper itself never runs and the test
 * costs only the decode and the VAD (~10 s). Real whisper-tiny.en and Silero VAD v6; skipped
 * when they are not installed (`npm run test-models`).
 */
import { expect } from 'chai';
import { mp3Silence, MP3_FRAME_SECONDS, wav8kSilence } from '../audio/hour-long-audio.js';
import { realModel, REAL_MODELS_DIR } from '../helpers/real-models.js';
import { bearer, createTestApp, type TestApp } from '../helpers/test-app.js';

const HOUR = 3600;

describe('hour-long uploads (real whisper-tiny.en and Silero VAD v6, default limits)', function () {
  this.timeout(240_000);
  let app: TestApp;
  let mp3Hour: Buffer;

  before(async function () {
    const models = ['whisper-tiny.en', 'silero-vad-v6'].map(realModel);
    if (!models.every((model) => model.installed)) this.skip(); // `npm run test-models` installs both
    app = await createTestApp({ manifest: { models: models.map((model) => model.entry!) }, modelsDir: REAL_MODELS_DIR });
    mp3Hour = await mp3Silence(HOUR);
  });
  after(() => app?.close());

  it('answers an hour of MP3 (multipart) and of WAV (raw body) with an empty transcript and its full duration', async () => {
    const form = await app.request
      .post('/v1/audio/transcriptions')
      .set('Authorization', bearer())
      .field('model', 'whisper-tiny.en')
      .field('response_format', 'verbose_json')
      .attach('file', mp3Hour, 'hour.mp3');
    expect(form.status, form.text).to.equal(200);
    expect(form.body.text).to.equal('');
    expect(form.body.segments).to.deep.equal([]);
    expect(form.body.duration).to.be.within(HOUR - MP3_FRAME_SECONDS, HOUR);

    const raw = await app.request
      .post('/v1/transcriptions?model=whisper-tiny.en')
      .set('Authorization', bearer())
      .set('Content-Type', 'audio/wav')
      .send(wav8kSilence(HOUR));
    expect(raw.status, raw.text).to.equal(200);
    expect(raw.body.transcript).to.equal('');
  });

  it('refuses audio longer than 60 minutes with a 413 that says so', async () => {
    const res = await app.request
      .post('/v1/audio/transcriptions')
      .set('Authorization', bearer())
      .field('model', 'whisper-tiny.en')
      .attach('file', await mp3Silence(HOUR + 2 * MP3_FRAME_SECONDS), 'long.mp3');
    expect(res.status, res.text).to.equal(413);
    expect(res.body.error.message).to.equal('audio is longer than the limit of 3600 seconds');
  });
});
