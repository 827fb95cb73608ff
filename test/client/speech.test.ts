/**
 * transcribe, transcribeStream and speak through the client, on the real server: the
 * random-weight fixtures for every input type, format and event, and the real whisper-tiny.en
 * and Piper voice (installed by `npm run test-models`; skipped when absent) for what they say.
 */
import { createReadStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { MPEGDecoder } from 'mpg123-decoder';
import { InferenceError, type AudioInput, type TranscriptionEvent } from '../../src/client/index.js';
import { encodeWav } from '../../src/audio/encode-wav.js';
import type { Manifest } from '../../src/inference/manifest.js';
import { AUDIO_FIXTURES, REPO_ROOT, SPEECH_DIR } from '../audio/audio-test-helpers.js';
import { REAL_MODELS_DIR, realModel } from '../helpers/real-models.js';
import { expectHeardBack } from '../helpers/heard-back.js';
import { rejection } from '../helpers/rejection.js';
import { serveTestApp, type ServedApp } from './serve-test-app.js';

const FIXTURES = join(REPO_ROOT, 'test/fixtures/models');
const STT = 'whisper-tiny-random';
const TTS = 'piper-random';

const MANIFEST: Manifest = {
  models: [
    // The random fixture would babble up to 448 tokens per window; a few keep the tests fast.
    { id: STT, task: 'speech-to-text', engine: 'transformers-asr', description: 'random Whisper', license: 'MIT', options: { maxNewTokens: 6 } },
    { id: TTS, task: 'text-to-speech', engine: 'piper', description: 'fixture', license: 'test', options: { threads: 1 } },
  ],
};

const fixture = (name: string) => readFileSync(join(AUDIO_FIXTURES, name));
const tone = () => encodeWav({ samples: new Float32Array(32_000).map((_, i) => Math.sin(i / 10) * 0.3), sampleRate: 16_000 });

async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const event of events) out.push(event);
  return out;
}

async function mp3Seconds(bytes: Uint8Array): Promise<number> {
  const decoder = new MPEGDecoder();
  await decoder.ready;
  try {
    const out = decoder.decode(bytes);
    expect(out.errors).to.deep.equal([]);
    return out.samplesDecoded / out.sampleRate;
  } finally {
    decoder.free();
  }
}

describe('client: speech (fixture models)', () => {
  let served: ServedApp;
  before(async () => {
    served = await serveTestApp({ manifest: MANIFEST, modelsDir: FIXTURES });
  });
  after(() => served.close());

  describe('transcribe', () => {
    const wav = fixture('tone-22k05-stereo-24bit.wav');
    const inputs: Array<[string, () => AudioInput]> = [
      ['a Blob', () => new Blob([wav], { type: 'audio/wav' })],
      ['a File (its name is sent)', () => new File([wav], 'tone.wav', { type: 'audio/wav' })],
      ['a Buffer', () => wav],
      ['a Uint8Array view into a larger buffer', () => new Uint8Array(Buffer.concat([Buffer.alloc(7), wav]).buffer, 7, wav.byteLength)],
      ['an ArrayBuffer', () => wav.buffer.slice(wav.byteOffset, wav.byteOffset + wav.byteLength) as ArrayBuffer],
      ['a ReadableStream of small chunks', () => new Blob([wav]).stream()],
      [
        "Node's fs.createReadStream as it is (an async iterable of Buffers)",
        () => createReadStream(join(AUDIO_FIXTURES, 'tone-22k05-stereo-24bit.wav'), { highWaterMark: 4096 }),
      ],
    ];
    for (const [what, file] of inputs) {
      it(`accepts ${what} and answers {text, usage}`, async () => {
        const result = await served.client().transcribe({ model: STT, file: file() });
        expect(result).to.have.all.keys('text', 'usage');
        expect(result.text).to.be.a('string');
      });
    }

    for (const name of ['tone-44k1-stereo.mp3', 'tone-44k1-stereo.flac', 'tone-44k1-stereo-vorbis.ogg', 'tone-48k-stereo-opus.ogg', 'tone-8k-mono-ulaw.wav']) {
      it(`reads ${name} (the server sniffs the format; no type needed)`, async () => {
        expect((await served.client().transcribe({ model: STT, file: fixture(name), language: 'en' })).text).to.be.a('string');
      });
    }

    it('verbose_json answers task, language, duration and segments', async () => {
      const result = await served.client().transcribe({ model: STT, file: tone(), responseFormat: 'verbose_json', timestampGranularities: ['segment'] });
      expect(result).to.include({ task: 'transcribe' });
      expect(result.duration).to.be.closeTo(2, 0.01);
      expect(result.segments).to.be.an('array');
      for (const segment of result.segments ?? [])
        expect(segment).to.include.keys('id', 'seek', 'start', 'end', 'text', 'tokens', 'avg_logprob', 'no_speech_prob');
    });

    it("'transcript' is SPEC's JavaScript client form (POST /v1/transcriptions): {id, object, created, model, transcript}", async () => {
      const before = Math.floor(Date.now() / 1000);
      const result = await served.client().transcribe({ model: STT, file: tone(), responseFormat: 'transcript', language: 'en' });
      expect(Object.keys(result)).to.deep.equal(['id', 'object', 'created', 'model', 'transcript']);
      expect(result.id).to.match(/^trsc_[0-9a-f]{32}$/);
      expect(result).to.include({ object: 'transcript', model: STT });
      expect(result.created).to.be.at.least(before);
      expect(result.transcript).to.be.a('string');
    });

    it('text, srt and vtt answer strings', async () => {
      const client = served.client();
      expect(await client.transcribe({ model: STT, file: tone(), responseFormat: 'text' }))
        .to.be.a('string')
        .and.match(/\n$/);
      expect(await client.transcribe({ model: STT, file: tone(), responseFormat: 'srt' })).to.be.a('string');
      expect(await client.transcribe({ model: STT, file: tone(), responseFormat: 'vtt' })).to.match(/^WEBVTT/);
    });

    it('sends the VAD options (an out-of-range one is refused by name)', async () => {
      const client = served.client();
      expect((await client.transcribe({ model: STT, file: tone(), vadFilter: false, minSilenceDurationMs: 500, speechPadMs: 100 })).text).to.be.a('string');
      const error = await rejection(client.transcribe({ model: STT, file: tone(), speechPadMs: 20_000 }));
      expect(error).to.include({ status: 400, code: 'invalid_request' });
      expect(error.message).to.match(/speech_pad_ms/);
    });

    it('undecodable bytes are a 400 undecodable_audio', async () => {
      const error = await rejection(served.client().transcribe({ model: STT, file: new Uint8Array([1, 2, 3, 4]) }));
      expect(error).to.be.instanceOf(InferenceError).and.include({ status: 400, code: 'undecodable_audio' });
    });

    it('a file that is neither bytes, Blob nor stream is a TypeError before anything is sent', async () => {
      const error = await rejection(served.client().transcribe({ model: STT, file: 'tone.wav' as unknown as Blob }));
      expect(error).to.be.instanceOf(TypeError);
      const text = await rejection(served.client().transcribe({ model: STT, file: createReadStream(join(AUDIO_FIXTURES, 'tone-44k1-stereo.mp3'), 'utf8') }));
      expect(text)
        .to.be.instanceOf(TypeError)
        .with.property('message')
        .match(/must yield bytes/);
    });
  });

  describe('transcribeStream', () => {
    it('yields typed delta events, then done; the deltas joined are the final text', async () => {
      const events = await collect(served.client().transcribeStream({ model: STT, file: tone() }));
      expect(events.at(-1)?.type).to.equal('transcript.text.done');
      const deltas = events.slice(0, -1);
      for (const event of deltas) expect(event.type).to.equal('transcript.text.delta');
      const done = events.at(-1) as Extract<TranscriptionEvent, { type: 'transcript.text.done' }>;
      expect(deltas.map((event) => (event.type === 'transcript.text.delta' ? event.delta : '')).join('')).to.equal(done.text);
    });

    it('an error before the first event is thrown by the first step, as an InferenceError', async () => {
      const error = await rejection(collect(served.client().transcribeStream({ model: 'nope', file: tone() })));
      expect(error).to.include({ status: 404, code: 'model_not_found' });
    });
  });

  describe('speak', () => {
    it('streams MP3: the body arrives in chunks that decode to audio', async () => {
      const speech = await served.client().speak({ model: TTS, input: 'Hello there. How are you today? Fine, thanks.' });
      expect(speech.contentType).to.equal('audio/mpeg');
      expect(speech.sampleRate).to.be.a('number');
      expect(speech.requestId).to.be.a('string');
      const chunks: Uint8Array[] = [];
      const reader = speech.body.getReader();
      for (let read = await reader.read(); !read.done; read = await reader.read()) chunks.push(read.value);
      expect(chunks.length).to.be.greaterThan(0);
      expect(await mp3Seconds(Buffer.concat(chunks))).to.be.greaterThan(0.1);
    });

    it('chunks() iterates the same stream; leaving the loop early cancels it', async () => {
      const client = served.client();
      const whole: Uint8Array[] = [];
      for await (const chunk of (await client.speak({ model: TTS, input: 'Hello there. How are you?' })).chunks()) whole.push(chunk);
      expect(await mp3Seconds(Buffer.concat(whole))).to.be.greaterThan(0.1);
      const speech = await client.speak({ model: TTS, input: 'One. Two. Three. Four.' });
      for await (const chunk of speech.chunks()) {
        expect(chunk.byteLength).to.be.greaterThan(0);
        break;
      }
      expect(speech.body.locked).to.equal(false);
      expect((await speech.body.getReader().read()).done).to.equal(true); // cancelled: nothing more arrives
    });

    it('blob() has the audio type; arrayBuffer() of WAV is a RIFF file', async () => {
      const client = served.client();
      const blob = await (await client.speak({ model: TTS, input: 'Hello.' })).blob();
      expect(blob.type).to.equal('audio/mpeg');
      expect(blob.size).to.be.greaterThan(100);
      const wav = await (await client.speak({ model: TTS, input: 'Hello.', format: 'wav', speed: 1.5 })).arrayBuffer();
      expect(Buffer.from(wav.slice(0, 4)).toString('latin1')).to.equal('RIFF');
    });

    it('pcm at a chosen rate says the rate (X-Sample-Rate)', async () => {
      const speech = await served.client().speak({ model: TTS, input: 'Hello.', format: 'pcm', sampleRate: 16_000 });
      expect(speech).to.include({ contentType: 'audio/pcm', sampleRate: 16_000 });
      expect((await speech.arrayBuffer()).byteLength % 2).to.equal(0);
    });

    it('a bad speed is a 400 naming the field; an unknown model a 404', async () => {
      const client = served.client();
      const error = await rejection(client.speak({ model: TTS, input: 'Hello.', speed: 9 }));
      expect(error).to.include({ status: 400, code: 'invalid_request' });
      expect(error.message).to.match(/"speed"/);
      expect(await rejection(client.speak({ model: 'nope', input: 'Hello.' }))).to.include({ status: 404, code: 'model_not_found' });
    });
  });
});

describe('client: speech with the real whisper-tiny.en and Piper voice', function () {
  this.timeout(180_000);
  const whisper = realModel('whisper-tiny.en');
  const piper = realModel('piper-en_US-joe-medium');
  let served: ServedApp;

  before(async function () {
    if (!whisper.installed || !piper.installed) return this.skip(); // `npm run test-models` installs them
    served = await serveTestApp({ manifest: { models: [whisper.entry!, piper.entry!] }, modelsDir: REAL_MODELS_DIR });
  });
  after(() => served?.close());

  it('transcribes a File of speech, and streams the same words as events', async () => {
    const client = served.client();
    // 3 s of LibriVox ("he was not an ill disposed young man"): the client's part is the same for any length.
    const name = 'en_librivox_sense_and_sensibility_0880.wav';
    const file = new File([readFileSync(join(SPEECH_DIR, name))], name, { type: 'audio/wav' });
    const { text } = await client.transcribe({ model: 'whisper-tiny.en', file });
    expect(text.toLowerCase()).to.match(/he was not an? .*young man/);
    const events = await collect(client.transcribeStream({ model: 'whisper-tiny.en', file }));
    expect(events.at(-1)).to.deep.equal({ type: 'transcript.text.done', text });
  });

  it('speaks a sentence that whisper hears back', async () => {
    const client = served.client();
    const sentence = 'The quick brown fox jumps over the lazy dog.';
    const audio = await (await client.speak({ model: 'piper-en_US-joe-medium', input: sentence, format: 'wav' })).blob();
    const { text } = await client.transcribe({ model: 'whisper-tiny.en', file: audio, filename: 'fox.wav' });
    expectHeardBack(sentence, text);
  });
});
