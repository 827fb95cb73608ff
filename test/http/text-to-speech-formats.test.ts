/**
 * Speech in OpenAI's other formats: Ogg Opus, FLAC and AAC (ADTS). Each answer is streamed
 * (chunked), has its content type, carries the rate asked for in its own header, and decodes
 * back with our own decoders to the length of the same speech as WAV. The real Piper voice's
 * AAC and Opus heard back by whisper-tiny.en: text-to-speech-heard-back.slow.test.ts.
 */
import { expect } from 'chai';
import { decodeAudio } from '../../src/audio/decode-audio.js';
import { sniffAudioFormat } from '../../src/audio/sniff-format.js';
import type { Manifest } from '../../src/inference/manifest.js';
import { binary } from '../helpers/binary-body.js';
import { bearer, createTestApp, type TestApp } from '../helpers/test-app.js';

const FIXTURES = new URL('../fixtures/models/', import.meta.url).pathname;
const MANIFEST: Manifest = {
  models: [{ id: 'piper-random', task: 'text-to-speech', engine: 'piper', description: 'fixture', license: 'test', options: { threads: 1 } }],
};
const INPUT = 'Hello world. How are you today? Fine, thank you.';

const FORMATS = [
  { format: 'opus', type: 'audio/ogg', sniffed: 'ogg-opus', defaultRate: 16000, otherRate: 48000 },
  { format: 'flac', type: 'audio/flac', sniffed: 'flac', defaultRate: 16000, otherRate: 44100 },
  { format: 'aac', type: 'audio/aac', sniffed: 'aac', defaultRate: 16000, otherRate: 8000 },
] as const;

/** The rate each container states: OpusHead's input rate, FLAC's STREAMINFO, the ADTS header's index. */
function statedRate(format: string, bytes: Buffer): number {
  if (format === 'opus') return bytes.readUInt32LE(bytes.indexOf('OpusHead') + 12);
  if (format === 'flac') return (bytes[18]! << 12) | (bytes[19]! << 4) | (bytes[20]! >> 4);
  return [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350][(bytes[2]! >> 2) & 0xf]!;
}

const seconds = async (bytes: Buffer) => (await decodeAudio(bytes, { sampleRate: 16000, maxSeconds: 600 })).samples.length / 16000;

describe('POST /v1/audio/speech in Ogg Opus, FLAC and AAC', () => {
  let app: TestApp;
  before(async () => {
    app = await createTestApp({ manifest: MANIFEST, modelsDir: FIXTURES });
  });
  after(() => app.close());

  const speak = (body: object, path = '/v1/audio/speech') =>
    app.request
      .post(path)
      .set('Authorization', bearer())
      .send({ model: 'piper-random', input: INPUT, ...body })
      .buffer(true)
      .parse(binary);

  for (const { format, type, sniffed, defaultRate, otherRate } of FORMATS) {
    it(`${format}: chunked ${type} at the voice's rate (or ${defaultRate} Hz) that decodes back to the WAV's length`, async () => {
      const wav = await speak({ response_format: 'wav' });
      const res = await speak({ response_format: format });
      expect(res.status, String(res.body)).to.equal(200);
      expect(res.headers['content-type']).to.equal(type);
      expect(res.headers['transfer-encoding']).to.equal('chunked');
      expect(res.headers['x-sample-rate']).to.equal(String(defaultRate));
      const bytes = res.body as Buffer;
      expect(sniffAudioFormat(bytes)).to.equal(sniffed);
      expect(statedRate(format, bytes)).to.equal(defaultRate);
      // Two renderings of the random-weight voice differ in length (Piper's duration noise, 30 % seen
      // apart); the codecs add ≤ 0.1 s. A codec that cut or doubled the audio still falls outside.
      expect((await seconds(bytes)) / (await seconds(wav.body as Buffer))).to.be.within(0.6, 1.6);
    });

    it(`${format}: encodes at a requested sample_rate (${otherRate}) and on /v1/text-to-speech too`, async () => {
      const res = await speak({ response_format: format, sample_rate: otherRate }, '/v1/text-to-speech');
      expect(res.status, String(res.body)).to.equal(200);
      expect(res.headers['x-sample-rate']).to.equal(String(otherRate));
      expect(statedRate(format, res.body as Buffer)).to.equal(otherRate);
      expect(await seconds(res.body as Buffer)).to.be.greaterThan(0.5);
    });
  }

  it('refuses a sample_rate the format cannot carry with a 400 naming the format and its rates', async () => {
    const res = await app.request
      .post('/v1/audio/speech')
      .set('Authorization', bearer())
      .send({ model: 'piper-random', input: 'Hi.', response_format: 'opus', sample_rate: 22050 });
    expect(res.status).to.equal(400);
    expect(res.body.error.message).to.equal('"sample_rate" 22050 is not supported for opus; use one of: 8000, 12000, 16000, 24000, 48000');
  });

  it('streams Ogg Opus as speech.audio.delta events (stream_format sse) that join into a decodable file', async () => {
    const res = await speak({ response_format: 'opus', stream_format: 'sse' });
    expect(res.status).to.equal(200);
    const events = (res.body as Buffer)
      .toString('utf8')
      .split('\n\n')
      .filter((block) => block.startsWith('data: '))
      .map((block) => JSON.parse(block.slice(6)) as { type: string; audio?: string });
    expect(events.at(-1)?.type).to.equal('speech.audio.done');
    const audio = Buffer.concat(events.slice(0, -1).map((event) => Buffer.from(event.audio!, 'base64')));
    expect(await seconds(audio)).to.be.greaterThan(0.5);
  });

  it('stops encoding cleanly when the client goes away mid-answer (the next answer still works)', async () => {
    const long = Array.from({ length: 30 }, (_, i) => `Sentence number ${i} is here.`).join(' ');
    const abandoned = app.request.post('/v1/audio/speech').set('Authorization', bearer()).send({ model: 'piper-random', input: long, response_format: 'aac' });
    setTimeout(() => abandoned.abort(), 300);
    await abandoned.then(
      () => undefined,
      () => undefined,
    );
    const res = await speak({ response_format: 'aac' });
    expect(res.status).to.equal(200);
    expect(await seconds(res.body as Buffer)).to.be.greaterThan(0.5);
  });
});
