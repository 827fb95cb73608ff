/**
 * `vad_filter` over HTTP: the request fields on both transcription routes, and, with the real
 * whisper-tiny.en and Silero VAD v6 installed (`npm run test-models`), what silence, noise and
 * a long pause transcribe to.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { decodeAudio } from '../../src/audio/decode-audio.js';
import { encodeWav } from '../../src/audio/encode-wav.js';
import type { Manifest } from '../../src/inference/manifest.js';
import { REPO_ROOT, SPEECH_DIR } from '../audio/audio-test-helpers.js';
import { bearer, createTestApp, type TestApp } from '../helpers/test-app.js';

const RATE = 16_000;
const REAL_MODELS_DIR = join(REPO_ROOT, 'models');
const FIXTURE_MODELS = join(REPO_ROOT, 'test/fixtures/models');

const wav = (samples: Float32Array) => Buffer.from(encodeWav({ samples, sampleRate: RATE }));

/** Seeded, so every run sends the same noise. */
function whiteNoise(seconds: number, amplitude: number): Float32Array {
  const samples = new Float32Array(seconds * RATE);
  let state = 7;
  for (let i = 0; i < samples.length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    samples[i] = amplitude * ((2 * state) / 2 ** 32 - 1);
  }
  return samples;
}

const words = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z ]/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .join(' ');

describe('vad_filter request fields (random-weight Whisper fixture, no VAD model installed)', () => {
  let app: TestApp;
  before(async () => {
    const manifest: Manifest = {
      models: [
        {
          id: 'whisper-tiny-random',
          task: 'speech-to-text',
          engine: 'transformers-asr',
          description: 'random Whisper',
          license: 'MIT',
          // As in most fixture tests, so a mocha process loads it once (shared-engines.ts).
          options: { maxNewTokens: 6 },
        },
      ],
    };
    app = await createTestApp({ manifest, modelsDir: FIXTURE_MODELS });
  });
  after(() => app.close());

  const post = (path: string, fields: Record<string, string>) => {
    let request = app.request.post(path).set('Authorization', bearer()).field('model', 'whisper-tiny-random');
    for (const [name, value] of Object.entries(fields)) request = request.field(name, value);
    return request.attach('file', wav(new Float32Array(RATE)), 'a.wav');
  };

  for (const path of ['/v1/audio/transcriptions', '/v1/transcriptions']) {
    it(`${path}: rejects a bad vad_filter or threshold with 400 naming the field`, async () => {
      for (const [name, value] of [
        ['vad_filter', 'yes'],
        ['vad_threshold', '1.5'],
        ['min_silence_duration_ms', '-1'],
        ['speech_pad_ms', 'lots'],
      ] as const) {
        const res = await post(path, { [name]: value });
        expect(res.status, `${name}=${value}: ${res.text}`).to.equal(400);
        expect(res.body.error.message).to.include(name);
      }
    });

    it(`${path}: vad_filter=true without the VAD model answers 503 naming its install command; false or unset transcribes`, async () => {
      const res = await post(path, { vad_filter: 'true' });
      expect(res.status, res.text).to.equal(503);
      expect(res.body.error.code).to.equal('model_not_installed');
      expect(res.body.error.message).to.include('npm run download-models -- silero-vad-v6');
      expect((await post(path, { vad_filter: 'false', min_silence_duration_ms: '500', speech_pad_ms: '100', vad_threshold: '0.6' })).status).to.equal(200);
      expect((await post(path, {})).status).to.equal(200);
    });
  }

  it('takes the fields as query parameters and X- headers with a raw audio body', async () => {
    const res = await app.request
      .post('/v1/audio/transcriptions?model=whisper-tiny-random&vad_filter=true')
      .set('Authorization', bearer())
      .set('Content-Type', 'audio/wav')
      .send(wav(new Float32Array(RATE)));
    expect(res.status, res.text).to.equal(503);
    const viaHeader = await app.request
      .post('/v1/audio/transcriptions?model=whisper-tiny-random')
      .set('Authorization', bearer())
      .set('X-Vad-Threshold', '7')
      .set('Content-Type', 'audio/wav')
      .send(wav(new Float32Array(RATE)));
    expect(viaHeader.status, viaHeader.text).to.equal(400);
  });
});

describe('vad_filter with the real whisper-tiny.en and Silero VAD v6', function () {
  // A window holding the same clip twice reads as a repetition loop (gzip ratio > 2.4), so each is
  // decoded at all six fallback temperatures: minutes on a loaded 2-core machine.
  this.timeout(300_000);
  let app: TestApp;
  let jfk: Float32Array;

  before(async function () {
    const manifest = JSON.parse(readFileSync(join(REAL_MODELS_DIR, 'models.json'), 'utf8')) as Manifest;
    const ids = ['whisper-tiny.en', 'silero-vad-v6'];
    if (!ids.every((id) => existsSync(join(REAL_MODELS_DIR, id, '.installed.json')))) this.skip(); // `npm run test-models` installs both models
    app = await createTestApp({ manifest: { models: manifest.models.filter((model) => ids.includes(model.id)) }, modelsDir: REAL_MODELS_DIR });
    jfk = (await decodeAudio(readFileSync(join(SPEECH_DIR, 'en_jfk.wav')), { maxSeconds: 60, sampleRate: RATE })).samples;
  });
  after(() => app?.close());

  const transcribe = (samples: Float32Array, fields: Record<string, string> = {}) => {
    let request = app.request.post('/v1/audio/transcriptions').set('Authorization', bearer()).field('model', 'whisper-tiny.en');
    for (const [name, value] of Object.entries(fields)) request = request.field(name, value);
    return request.attach('file', wav(samples), 'clip.wav');
  };

  // Without the filter whisper-tiny.en answers "you you you" for the silence and invents
  // sentences ("I'm going to do that.") for the noise.
  it('answers an empty transcript for 60 s of silence and of white noise (the filter is on by default past 30 s)', async () => {
    for (const [name, samples] of [
      ['silence', new Float32Array(60 * RATE)],
      ['noise ±0.05', whiteNoise(60, 0.05)],
      ['noise ±0.3', whiteNoise(60, 0.3)],
    ] as const) {
      const json = await transcribe(samples);
      expect(json.status, json.text).to.equal(200);
      expect(json.body, name).to.deep.equal({ text: '', usage: { type: 'duration', seconds: 60 } });
      const verbose = await transcribe(samples, { response_format: 'verbose_json' });
      expect(verbose.body.text, name).to.equal('');
      expect(verbose.body.segments, name).to.deep.equal([]);
      expect(verbose.body.duration, name).to.equal(60);
    }
    // A short clip is filtered when asked.
    const short = await transcribe(whiteNoise(10, 0.3), { vad_filter: 'true' });
    expect(short.body).to.deep.equal({ text: '', usage: { type: 'duration', seconds: 10 } });
  });

  it('answers empty text for short audio in which the VAD hears no speech, unless vad_filter=false; short speech is transcribed whole', async () => {
    // The first 3 KB of an MP3 (a third of a second before the speech): Whisper alone answers "you".
    const start = readFileSync(join(REPO_ROOT, 'samples/jfk.mp3')).subarray(0, 3072);
    const post = (fields: Record<string, string>) => {
      let request = app.request.post('/v1/audio/transcriptions').set('Authorization', bearer()).field('model', 'whisper-tiny.en');
      for (const [name, value] of Object.entries(fields)) request = request.field(name, value);
      return request.attach('file', start, 'start.mp3');
    };
    const empty = await post({ response_format: 'verbose_json' });
    expect(empty.status, empty.text).to.equal(200);
    expect(empty.body).to.include({ text: '', duration: 0.327 });
    expect(empty.body.segments).to.deep.equal([]);
    expect((await post({ vad_filter: 'false' })).body.text).to.equal('you');
    for (const [name, samples] of [
      ['2 s of silence', new Float32Array(2 * RATE)],
      ['5 s of noise', whiteNoise(5, 0.05)],
    ] as const) {
      expect((await transcribe(samples)).body.text, name).to.equal('');
    }
    expect(words((await transcribe(jfk)).body.text)).to.include('not what your country can do for you');
  });

  it('transcribes more than 30 s of joined speech in order, each clip at its own time', async () => {
    // Five clips with 5 s pauses: 34 s of speech after the filter, 54 s of timeline, more than one
    // window. Distinct clips around the two jfk ones: a window holding one sentence over and over
    // reads as a repetition loop (gzip ratio > 2.4) and is decoded again at every fallback temperature.
    const decode = async (file: string) => (await decodeAudio(readFileSync(join(SPEECH_DIR, file)), { maxSeconds: 60, sampleRate: RATE })).samples;
    const clips = [jfk, await decode('en_librivox_sense_and_sensibility_0880.wav'), await decode('en_fleurs_003.ogg'), await decode('en_cards_005.wav'), jfk];
    const gap = 5 * RATE;
    const audio = new Float32Array(clips.reduce((length, clip) => length + clip.length, 0) + (clips.length - 1) * gap);
    /** Each pause, [from, to] in seconds. */
    const pauses: (readonly [number, number])[] = [];
    let offset = 0;
    for (const clip of clips) {
      audio.set(clip, offset);
      offset += clip.length;
      if (pauses.length < clips.length - 1) pauses.push([offset / RATE, (offset + gap) / RATE]);
      offset += gap;
    }
    const res = await transcribe(audio, { response_format: 'verbose_json' });
    expect(res.status, res.text).to.equal(200);
    const text = words(res.body.text);
    // tiny.en hears "ask" or "asked" from one window to the next: count the rest of the sentence.
    expect(text.split('not what your country can do for you').length - 1, text).to.equal(2);
    for (const phrase of ['young man', 'juice changes', 'spades']) expect(text.split(phrase).length - 1, text).to.equal(1);
    expect(text.indexOf('young man'), text).to.be.below(text.indexOf('juice changes'));
    expect(text.indexOf('juice changes'), text).to.be.below(text.indexOf('spades'));
    const segments = res.body.segments as { start: number; end: number; text: string }[];
    expect(segments[0]!.start).to.be.below(0.5);
    expect(segments.at(-1)!.end).to.be.within(audio.length / RATE - 1.5, audio.length / RATE + 0.01);
    for (const [index, segment] of segments.entries()) {
      if (index > 0) expect(segment.start, JSON.stringify(segments)).to.be.at.least(segments[index - 1]!.end - 0.01);
      // Times come back on the upload's timeline: no segment starts well inside a cut pause.
      for (const [from, to] of pauses) expect(segment.start > from + 0.5 && segment.start < to - 0.5, JSON.stringify(segments)).to.equal(false);
    }
  });

  it('keeps every word of speech around a 40 s pause, and its segments are stamped in the original time', async () => {
    const pause = 40;
    const clipSeconds = jfk.length / RATE;
    const audio = new Float32Array(jfk.length * 2 + pause * RATE);
    audio.set(jfk, 0);
    audio.set(jfk, jfk.length + pause * RATE);
    const res = await transcribe(audio, { response_format: 'verbose_json' });
    expect(res.status, res.text).to.equal(200);
    const text = words(res.body.text);
    expect(text.split('not what your country can do for you').length - 1, text).to.equal(2);
    expect(text.split('ask what you can do for your country').length - 1, text).to.equal(2);
    expect(text, 'nothing invented for the pause').to.not.match(/\byou you\b/);
    expect(res.body.duration).to.be.closeTo(2 * clipSeconds + pause, 0.01);

    const segments = res.body.segments as { start: number; end: number; text: string }[];
    const secondStart = clipSeconds + pause;
    const first = segments.filter((segment) => segment.start < secondStart - 1);
    const second = segments.filter((segment) => segment.start >= secondStart - 1);
    expect(words(first.map((segment) => segment.text).join(' '))).to.equal(words(second.map((segment) => segment.text).join(' ')));
    // No segment spans the pause: the first clip's end at its end, the second's start at its start.
    expect(first.at(-1)!.end).to.be.within(clipSeconds - 1.5, clipSeconds + 0.5);
    expect(second[0]!.start).to.be.within(secondStart - 0.5, secondStart + 1);
    expect(second.at(-1)!.end).to.be.within(2 * clipSeconds + pause - 1.5, 2 * clipSeconds + pause + 0.01);
    for (const [index, segment] of segments.entries()) {
      expect(segment.end).to.be.at.least(segment.start);
      if (index > 0) expect(segment.start).to.be.at.least(segments[index - 1]!.end - 0.01);
    }
  });
});
