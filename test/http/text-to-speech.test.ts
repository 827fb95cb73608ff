import { existsSync } from 'node:fs';
import { expect } from 'chai';
import { MPEGDecoder } from 'mpg123-decoder';
import type { Engine } from '../../src/inference/engine.js';
import { ENGINES } from '../../src/inference/engines.js';
import { readManifest, type Manifest } from '../../src/inference/manifest.js';
import type { PcmSynthesizer } from '../../src/inference/types.js';
import { concatSamples } from '../../src/audio/concat-samples.js';
import { decodeAudio } from '../../src/audio/decode-audio.js';
import { encodeWav } from '../../src/audio/encode-wav.js';
import { expectHeardBack } from '../helpers/heard-back.js';
import { bearer, createTestApp, type TestApp } from '../helpers/test-app.js';

const FIXTURES = new URL('../fixtures/models/', import.meta.url).pathname;

const MANIFEST: Manifest = {
  models: [
    { id: 'piper-random', task: 'text-to-speech', engine: 'piper', description: 'fixture', license: 'test', options: { threads: 1 } },
    { id: 'mms-tts-random', task: 'text-to-speech', engine: 'transformers-tts', description: 'fixture', license: 'test', options: { threads: 1 } },
    { id: 'piper-not-installed', task: 'text-to-speech', engine: 'piper', description: 'absent', license: 'test' },
    { id: 'bert-sentiment-random', task: 'text-classification', engine: 'transformers-text-classification', description: 'fixture', license: 'test' },
    { id: 'fails-mid-stream', task: 'text-to-speech', engine: 'fails-mid-stream', description: 'test double', license: 'test' },
    { id: 'tone-pieces', task: 'text-to-speech', engine: 'tone-pieces', description: 'test double', license: 'test' },
  ],
};

/** Yields one real sentence of audio, then fails: the only way to reach the after-first-byte path. */
const failsMidStream: Engine<'text-to-speech'> = {
  tasks: ['text-to-speech'],
  isInstalled: async () => true,
  load: async (): Promise<PcmSynthesizer> => ({
    sampleRate: 16000,
    async *synthesize() {
      yield { samples: new Float32Array(16000).fill(0.1), sampleRate: 16000 };
      throw new Error('model crashed');
    },
    async dispose() {},
  }),
};

/** Two pieces of known tones (0.5 s, 1.25 s at 16 kHz), the first marked as not the last, as WorkerSynthesizer does. */
const TONE_PIECES = [0.5, 1.25].map((seconds, index) =>
  Float32Array.from({ length: seconds * 16000 }, (_, i) => (index === 0 ? 0.5 : -0.25) * Math.sin((2 * Math.PI * 440 * i) / 16000)),
);
const tonePieces: Engine<'text-to-speech'> = {
  tasks: ['text-to-speech'],
  isInstalled: async () => true,
  load: async (): Promise<PcmSynthesizer> => ({
    sampleRate: 16000,
    async *synthesize() {
      for (const [index, samples] of TONE_PIECES.entries()) yield { samples, sampleRate: 16000, last: index === TONE_PIECES.length - 1 };
    },
    async dispose() {},
  }),
};

interface Audio {
  seconds: number;
  sampleRate: number;
  errors: number;
}

async function decodeMp3(bytes: Buffer): Promise<Audio> {
  const decoder = new MPEGDecoder();
  await decoder.ready;
  try {
    const out = decoder.decode(bytes);
    return { seconds: out.samplesDecoded / (out.sampleRate || 1), sampleRate: out.sampleRate, errors: out.errors.length };
  } finally {
    decoder.free();
  }
}

// superagent types the parser's stream as its Response; at run time it is the Node response stream.
const binary = (res: unknown, callback: (error: Error | null, body: Buffer) => void) => {
  const stream = res as NodeJS.ReadableStream;
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('end', () => callback(null, Buffer.concat(chunks)));
};

describe('POST /v1/text-to-speech', () => {
  let app: TestApp;
  before(async () => {
    app = await createTestApp({
      manifest: MANIFEST,
      modelsDir: FIXTURES,
      engines: { ...ENGINES, 'fails-mid-stream': failsMidStream, 'tone-pieces': tonePieces },
    });
  });
  after(() => app.close());

  const speak = (body: object, path = '/v1/text-to-speech') => app.request.post(path).set('Authorization', bearer()).send(body).buffer(true).parse(binary);

  it('answers 200 with chunked audio/mpeg that decodes to plausible speech length (piper engine)', async () => {
    const res = await speak({ model: 'piper-random', input: 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background.' });
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.equal('audio/mpeg');
    expect(res.headers['transfer-encoding']).to.equal('chunked');
    expect(res.headers['content-length']).to.equal(undefined);
    const audio = await decodeMp3(res.body);
    expect(audio.errors).to.equal(0);
    expect(audio.sampleRate).to.equal(16000);
    expect(audio.seconds).to.be.within(1, 30);
  });

  it('answers MP3 for a transformers.js VITS model (transformers-tts engine)', async () => {
    const res = await speak({ model: 'mms-tts-random', input: 'Hello world.' });
    expect(res.status).to.equal(200);
    const audio = await decodeMp3(res.body);
    expect(audio.sampleRate).to.equal(16000);
    expect(audio.seconds).to.be.greaterThan(0.1);
  });

  it('answers a WAV file of the same voice for response_format wav', async () => {
    const res = await speak({ model: 'piper-random', input: 'Hello world.', response_format: 'wav' });
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.equal('audio/wav');
    const body = res.body as Buffer;
    expect(body.subarray(0, 4).toString('ascii')).to.equal('RIFF');
    expect(body.readUInt32LE(24)).to.equal(16000);
    expect(Number(res.headers['content-length'])).to.equal(body.length);
    expect(body.readUInt32LE(40)).to.equal(body.length - 44);
  });

  it("streams a WAV spoken in several pieces: a header of unknown length, then exactly the pieces' samples", async () => {
    const res = await speak({ model: 'tone-pieces', input: 'Anything at all.', response_format: 'wav' });
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.equal('audio/wav');
    expect(res.headers['transfer-encoding']).to.equal('chunked');
    expect(res.headers['content-length']).to.equal(undefined);
    const body = res.body as Buffer;
    expect(body.subarray(0, 4).toString('ascii')).to.equal('RIFF');
    expect(body.readUInt32LE(4)).to.equal(0xffffffff);
    expect(body.readUInt32LE(24)).to.equal(16000);
    expect(body.readUInt32LE(40)).to.equal(0xffffffff);
    const expected = Buffer.from(encodeWav({ samples: concatSamples(TONE_PIECES), sampleRate: 16000 }));
    expect(body.length).to.equal(expected.length);
    expect(body.subarray(44).equals(expected.subarray(44))).to.equal(true);
    expect((await decodeAudio(body, { sampleRate: 16000, maxSeconds: 60 })).samples.length).to.equal(1.75 * 16000);
  });

  it('cuts a long first sentence for a quick first byte and streams it as WAV of the same speech as its MP3 (piper engine)', async () => {
    const input = 'The birch canoe slid on the smooth planks and drifted slowly down the river.';
    const wav = await speak({ model: 'piper-random', input, response_format: 'wav' });
    expect(wav.status).to.equal(200);
    expect(wav.headers['transfer-encoding']).to.equal('chunked');
    const body = wav.body as Buffer;
    expect(body.readUInt32LE(40)).to.equal(0xffffffff);
    expect(body.readUInt32LE(24)).to.equal(16000);
    expect((body.length - 44) % 2).to.equal(0);
    const wavSeconds = (await decodeAudio(body, { sampleRate: 16000, maxSeconds: 60 })).samples.length / 16000;
    expect(wavSeconds).to.equal((body.length - 44) / 2 / 16000);
    const mp3 = await decodeMp3((await speak({ model: 'piper-random', input })).body as Buffer);
    // Two renderings of the random-weight voice differ in length (Piper's duration noise).
    expect(mp3.seconds / wavSeconds).to.be.within(0.6, 1.6);
  });

  it('answers raw 24-kHz PCM16 for response_format pcm', async () => {
    const wav = (await speak({ model: 'piper-random', input: 'Hello world.', response_format: 'wav' })).body as Buffer;
    const res = await speak({ model: 'piper-random', input: 'Hello world.', response_format: 'pcm' });
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.equal('audio/pcm');
    const pcm = res.body as Buffer;
    expect(pcm.subarray(0, 4).toString('ascii')).to.not.equal('RIFF');
    expect(pcm.length % 2).to.equal(0);
    // The voice speaks at 16 kHz: about 1.5 times as many samples at 24 kHz (its durations vary a
    // little between calls, as Piper's noise does; encode-pcm16.test.ts checks the exact count).
    const wavSamples = (wav.length - 44) / 2;
    expect(pcm.length / 2 / (wavSamples * 1.5)).to.be.within(0.6, 1.6);
  });

  it('streams OpenAI speech.audio.delta events for stream_format sse; a WAV (sent whole) comes as one delta', async () => {
    const res = await app.request
      .post('/v1/audio/speech')
      .set('Authorization', bearer())
      .send({ model: 'piper-random', input: 'Hello world. How are you?', response_format: 'pcm', stream_format: 'sse' })
      .buffer(true)
      .parse(binary);
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.match(/^text\/event-stream/);
    const events = (res.body as Buffer)
      .toString('utf8')
      .split('\n\n')
      .filter((block) => block.startsWith('data: '))
      .map((block) => JSON.parse(block.slice(6)) as { type: string; audio?: string });
    const tokens = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
    expect(events.at(-1)).to.deep.equal({ type: 'speech.audio.done', usage: tokens, token_usage: tokens });
    const deltas = events.slice(0, -1);
    expect(deltas.length).to.be.greaterThan(0);
    expect(deltas.every((event) => event.type === 'speech.audio.delta')).to.equal(true);
    const audio = Buffer.concat(deltas.map((event) => Buffer.from(event.audio!, 'base64')));
    expect(audio.length % 2).to.equal(0);
    expect(audio.length).to.be.greaterThan(24_000 * 2 * 0.2);
    const wav = await app.request
      .post('/v1/audio/speech')
      .set('Authorization', bearer())
      .send({ model: 'piper-random', input: 'Hi.', response_format: 'wav', stream_format: 'sse' })
      .buffer(true)
      .parse(binary);
    expect(wav.status).to.equal(200);
    const wavEvents = (wav.body as Buffer)
      .toString('utf8')
      .split('\n\n')
      .filter((block) => block.startsWith('data: '))
      .map((block) => JSON.parse(block.slice(6)) as { type: string; audio?: string });
    expect(wavEvents.map((event) => event.type)).to.deep.equal(['speech.audio.delta', 'speech.audio.done']);
    expect(Buffer.from(wavEvents[0]!.audio!, 'base64').subarray(0, 4).toString()).to.equal('RIFF');
  });

  it('resamples to a requested sample_rate in every format, says the rate in X-Sample-Rate, and refuses others', async () => {
    const wav = await speak({ model: 'piper-random', input: 'Hello world.', response_format: 'wav', sample_rate: 48000 });
    expect((wav.body as Buffer).readUInt32LE(24)).to.equal(48000);
    expect(wav.headers['x-sample-rate']).to.equal('48000');
    const pcm = await speak({ model: 'piper-random', input: 'Hello world.', response_format: 'pcm', sample_rate: 8000 });
    expect(pcm.status).to.equal(200);
    expect(pcm.headers['x-sample-rate']).to.equal('8000');
    expect((await speak({ model: 'piper-random', input: 'Hello world.', response_format: 'pcm' })).headers['x-sample-rate']).to.equal('24000');
    const mp3 = await speak({ model: 'piper-random', input: 'Hello world.', sample_rate: 44100 });
    expect(mp3.status).to.equal(200);
    expect(mp3.headers['x-sample-rate']).to.equal('44100');
    const odd = await speak({ model: 'piper-random', input: 'Hello world.', sample_rate: 12345 });
    expect(odd.status).to.equal(400);
    expect(JSON.parse((odd.body as Buffer).toString()).error.message).to.match(/"sample_rate" 12345 is not supported for mp3; use one of: 8000/);
  });

  it('makes speech shorter with a higher speed', async () => {
    const input = 'Glue the sheet to the dark blue background, then rest for a while.';
    const slow = await speak({ model: 'piper-random', input, speed: 0.5, response_format: 'wav' });
    const fast = await speak({ model: 'piper-random', input, speed: 4, response_format: 'wav' });
    expect(fast.body.length).to.be.lessThan(slow.body.length);
  });

  describe('rejections (JSON errors, before any audio)', () => {
    const cases: Array<[string, object, number, string | RegExp]> = [
      ['input is missing', { model: 'piper-random' }, 400, /"input" is required/],
      ['input is blank', { model: 'piper-random', input: '   ' }, 400, /"input" must not be empty/],
      ['input has nothing speakable', { model: 'piper-random', input: '?!...' }, 400, /nothing that can be spoken/],
      ['speed is out of range', { model: 'piper-random', input: 'Hi.', speed: 10 }, 400, /"speed" must be a number between 0.25 and 4/],
      ['response_format is unknown', { model: 'piper-random', input: 'Hi.', response_format: 'ogg' }, 400, /"response_format" must be one of: mp3, wav/],
      ['the model does another task', { model: 'bert-sentiment-random', input: 'Hi.' }, 400, /text-classification model/],
      ['speed is unsupported by the model', { model: 'mms-tts-random', input: 'Hi.', speed: 2 }, 400, /"speed" is not supported/],
      ['the model is unknown', { model: 'nope', input: 'Hi.' }, 404, /Unknown model "nope"/],
      ['the model is not installed', { model: 'piper-not-installed', input: 'Hi.' }, 503, /not installed/],
    ];
    for (const [what, body, status, message] of cases) {
      it(`answers ${status} when ${what}`, async () => {
        const res = await app.request.post('/v1/text-to-speech').set('Authorization', bearer()).send(body);
        expect(res.status).to.equal(status);
        expect(res.headers['content-type']).to.match(/^application\/json/);
        expect(res.body.error.message).to.match(message as RegExp);
      });
    }

    it('answers 413 naming the limit when input is longer than maxSpeechInputChars', async () => {
      const limit = app.config.limits.maxSpeechInputChars;
      const res = await app.request
        .post('/v1/text-to-speech')
        .set('Authorization', bearer())
        .send({ model: 'piper-random', input: 'a'.repeat(limit + 1) });
      expect(res.status).to.equal(413);
      expect(res.body.error.code).to.equal('payload_too_large');
      expect(res.body.error.message).to.include(`the limit is ${limit}`);
    });

    it('answers 401 without an API key', async () => {
      const res = await app.request.post('/v1/text-to-speech').send({ model: 'piper-random', input: 'Hi.' });
      expect(res.status).to.equal(401);
      expect(res.body.error.code).to.equal('unauthorized');
    });

    it('answers 415 for a non-JSON body', async () => {
      const res = await app.request.post('/v1/text-to-speech').set('Authorization', bearer()).set('Content-Type', 'text/plain').send('Hi.');
      expect(res.status).to.equal(415);
    });
  });

  it('cuts the connection when synthesis fails after audio was sent (status already 200)', async () => {
    let error: (Error & { code?: string }) | undefined;
    let status: number | undefined;
    try {
      const res = await speak({ model: 'fails-mid-stream', input: 'One. Two.' });
      status = res.status;
    } catch (caught) {
      error = caught as Error;
    }
    expect(status, 'a complete response must not arrive').to.equal(undefined);
    expect(error?.message ?? error?.code).to.match(/aborted|socket hang up|ECONNRESET/i);
  });
});

describe('POST /v1/audio/speech (OpenAI-compatible alias)', () => {
  let app: TestApp;
  before(async () => {
    app = await createTestApp({
      manifest: MANIFEST,
      modelsDir: FIXTURES,
      engines: { ...ENGINES, 'fails-mid-stream': failsMidStream, 'tone-pieces': tonePieces },
    });
  });
  after(() => app.close());

  it('answers MP3 for an OpenAI-style body (voice names are accepted by single-speaker voices)', async () => {
    const res = await app.request
      .post('/v1/audio/speech')
      .set('Authorization', bearer())
      .send({ model: 'piper-random', input: 'Hello world.', voice: 'alloy', response_format: 'mp3', speed: 1 })
      .buffer(true)
      .parse(binary);
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.equal('audio/mpeg');
    expect((await decodeMp3(res.body)).seconds).to.be.greaterThan(0.1);
  });

  it('answers 400 for a response_format OpenAI does not have either', async () => {
    const res = await app.request.post('/v1/audio/speech').set('Authorization', bearer()).send({ model: 'piper-random', input: 'Hi.', response_format: 'ogg' });
    const pcm = await app.request.post('/v1/audio/speech').set('Authorization', bearer()).send({ model: 'piper-random', input: 'Hi.', response_format: 'pcm' });
    expect(pcm.status).to.equal(200);
    expect(pcm.headers['content-type']).to.equal('audio/pcm');
    expect(res.status).to.equal(400);
    expect(res.body.error.message).to.match(/response_format/);
  });

  it('answers 401 without an API key', async () => {
    const res = await app.request.post('/v1/audio/speech').send({ model: 'piper-random', input: 'Hi.' });
    expect(res.status).to.equal(401);
  });
});

describe('text to speech with the real Piper voice, transcribed back (needs `npm run test-models`)', function () {
  this.timeout(120_000);
  const modelsDir = new URL('../../models/', import.meta.url).pathname;
  const installed = ['piper-en_US-joe-medium', 'whisper-tiny.en'].every((id) => existsSync(`${modelsDir}${id}/.installed.json`));
  let app: TestApp;
  before(async function () {
    if (!installed) this.skip(); // piper-en_US-joe-medium and whisper-tiny.en are installed by `npm run test-models`
    app = await createTestApp({ manifest: await readManifest(`${modelsDir}models.json`), modelsDir });
  });
  after(() => app?.close());

  it('answers playable MP3 of plausible length that transcribes back to the sentence', async () => {
    // whisper-tiny.en is a small recogniser: it mishears some Harvard sentences ("canoe slid" →
    // "can use lid") even from clean speech, and Piper's noise makes each rendering differ, so
    // the check allows the round-trip goal (WER ≤ 0.2) rather than an exact match.
    const sentence = 'They were three hundred yards apart. The date was nearly eighteen years old.';
    const speech = await app.request
      .post('/v1/text-to-speech')
      .set('Authorization', bearer())
      .send({ model: 'piper-en_US-joe-medium', input: sentence })
      .buffer(true)
      .parse(binary);
    expect(speech.status).to.equal(200);
    const audio = await decodeMp3(speech.body);
    expect(audio.sampleRate).to.equal(22050);
    expect(audio.seconds).to.be.within(3, 8);

    const transcript = await app.request
      .post('/v1/transcriptions?model=whisper-tiny.en')
      .set('Authorization', bearer())
      .set('Content-Type', 'audio/mpeg')
      .send(speech.body);
    expect(transcript.status).to.equal(200);
    expectHeardBack(sentence, transcript.body.transcript);
  });
});
