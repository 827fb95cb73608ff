/**
 * Long uploads end to end. First, plumbing on the random-weight fixture (no VAD installed): a
 * generated multi-window WAV through the long-form path, as json and as stream=true events.
 * Then hour-long uploads on the default limits: 60 minutes of MP3 and of WAV through
 * multipart and raw bodies, decoded in the ASR worker, filtered by Silero VAD (on by default past
 * 30 s) and answered; one frame more is a 413. Silence, so Whisper itself never runs and the test
 * costs only the decode and the VAD (~10 s). Real whisper-tiny.en and Silero VAD v6; skipped
 * when they are not installed (`npm run test-models`).
 */
import { join } from 'node:path';
import { expect } from 'chai';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';
import { mp3Silence, MP3_FRAME_SECONDS, wav8kSilence } from '../audio/hour-long-audio.js';
import { realModel, REAL_MODELS_DIR } from '../helpers/real-models.js';
import { bearer, createTestApp, type TestApp } from '../helpers/test-app.js';

const HOUR = 3600;

describe('multi-window uploads (random-weight Whisper fixture)', function () {
  this.timeout(60_000);
  let app: TestApp;
  before(async () => {
    const entry = {
      id: 'whisper-tiny-random',
      task: 'speech-to-text' as const,
      engine: 'transformers-asr',
      description: 'random Whisper',
      license: 'MIT',
      options: { maxNewTokens: 6 },
    };
    app = await createTestApp({ manifest: { models: [entry] }, modelsDir: join(REPO_ROOT, 'test/fixtures/models') });
  });
  after(() => app?.close());

  it('answers 95 s (four windows) as json and as stream=true deltas that add up to the same text', async () => {
    const wav = wav8kSilence(95, true);
    const json = await app.request
      .post('/v1/audio/transcriptions')
      .set('Authorization', bearer())
      .field('model', 'whisper-tiny-random')
      .field('response_format', 'verbose_json')
      .attach('file', wav, 'long.wav');
    expect(json.status, json.text).to.equal(200);
    expect(json.body.duration).to.equal(95);
    const segments = json.body.segments as { start: number; end: number }[];
    expect(segments.length).to.be.greaterThan(1);
    expect(segments.at(-1)!.end).to.be.at.most(95);

    const stream = await app.request
      .post('/v1/transcriptions?model=whisper-tiny-random&stream=true')
      .set('Authorization', bearer())
      .set('Content-Type', 'audio/wav')
      .send(wav);
    expect(stream.status).to.equal(200);
    expect(stream.type).to.equal('text/event-stream');
    const events = stream.text
      .trim()
      .split('\n\n')
      .map((block) => JSON.parse(block.replace(/^data: /, '')) as { type: string; delta?: string; text?: string });
    const deltas = events.filter((event) => event.type === 'transcript.text.delta');
    expect(deltas.length, 'one delta per window with segments').to.be.greaterThan(1);
    expect(events.at(-1)!.type).to.equal('transcript.text.done');
    expect(deltas.map((event) => event.delta).join('')).to.equal(events.at(-1)!.text);
    expect(events.at(-1)!.text).to.equal(json.body.text);
  });
});

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
    expect(res.body.error.message).to.equal("audio is longer than the limit of 3600 seconds (the server's MAX_AUDIO_MINUTES setting raises it)");
  });
});
