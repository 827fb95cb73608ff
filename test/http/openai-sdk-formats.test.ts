/**
 * The official `openai` package with the audio people record and the speech formats OpenAI
 * offers: uploads of WebM, M4A and AAC files (as a browser or phone app sends them) and
 * `response_format` opus, aac and flac, each answer decoded back by our own decoders.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect } from 'chai';
import OpenAI, { toFile } from 'openai';
import { decodeAudio } from '../../src/audio/decode-audio.js';
import { sniffAudioFormat } from '../../src/audio/sniff-format.js';
import type { Manifest } from '../../src/inference/manifest.js';
import { AUDIO_FIXTURES, REPO_ROOT } from '../audio/audio-test-helpers.js';
import { createTestApp, TEST_API_KEY, type TestApp } from '../helpers/test-app.js';

/** The fixtures with the options most files use, so a mocha process loads each once (shared-engines.ts). */
const MANIFEST: Manifest = {
  models: [
    {
      id: 'whisper-tiny-random',
      task: 'speech-to-text',
      engine: 'transformers-asr',
      description: 'random Whisper',
      license: 'MIT',
      options: { maxNewTokens: 6 },
    },
    { id: 'piper-random', task: 'text-to-speech', engine: 'piper', description: 'random Piper voice', license: 'MIT', options: { threads: 1 } },
  ],
};

describe('official openai SDK: recorder uploads and opus/aac/flac speech (fixture models)', function () {
  this.timeout(120_000);
  let app: TestApp;
  let server: Server;
  let client: OpenAI;
  before(async () => {
    app = await createTestApp({ manifest: MANIFEST, modelsDir: join(REPO_ROOT, 'test/fixtures/models') });
    server = createServer(app.app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    client = new OpenAI({ apiKey: TEST_API_KEY, baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, maxRetries: 0 });
  });
  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await app.close();
  });

  for (const [name, type] of [
    ['speech-48k-stereo-opus-live.webm', 'audio/webm'],
    ['speech-44k1-mono-aac.m4a', 'audio/mp4'],
    ['speech-48k-stereo-aac-fragmented.mp4', 'audio/mp4'],
    ['speech-22k05-mono.aac', 'audio/aac'],
  ] as const) {
    it(`transcriptions.create with ${name} (${type})`, async () => {
      const file = await toFile(readFileSync(join(AUDIO_FIXTURES, name)), name, { type });
      const result = await client.audio.transcriptions.create({ file, model: 'whisper-tiny-random', response_format: 'verbose_json' });
      expect(result.text).to.be.a('string');
      expect(result.duration).to.be.within(2.9, 3.7);
    });
  }

  for (const [format, sniffed] of [
    ['opus', 'ogg-opus'],
    ['aac', 'aac'],
    ['flac', 'flac'],
  ] as const) {
    it(`speech.create with response_format ${format}`, async () => {
      const response = await client.audio.speech.create({ model: 'piper-random', input: 'Hello there. How are you?', voice: 'alloy', response_format: format });
      const bytes = Buffer.from(await response.arrayBuffer());
      expect(sniffAudioFormat(bytes)).to.equal(sniffed);
      const audio = await decodeAudio(bytes, { sampleRate: 16000, maxSeconds: 60 });
      expect(audio.samples.length / 16000).to.be.greaterThan(0.5);
    });
  }
});
