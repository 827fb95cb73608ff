/**
 * Kokoro end to end: the random-weight fixture (laid out as onnx-community/Kokoro-82M-v1.0-ONNX)
 * is installed through a hub mirror by `download-models hf:`, then served over real HTTP. Its
 * weights are random, so the audio is noise: these tests check rates, containers, streaming,
 * voices and lengths, never words.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { decodeAudio } from '../../src/audio/decode-audio.js';
import { sniffAudioFormat } from '../../src/audio/sniff-format.js';
import { runDownloadModels } from '../../src/inference/install/download-models-command.js';
import { loadManifest } from '../../src/inference/local-entries.js';
import { folderFiles, startHubMirror, type FakeHub } from '../helpers/fake-hub.js';
import { bearer, createTestApp, type TestApp } from '../helpers/test-app.js';

const REPO = 'onnx-community/Kokoro-82M-v1.0-ONNX';
const MODEL = 'kokoro-82m-v1.0-onnx';
const FIXTURE = new URL('../fixtures/models/kokoro-random/', import.meta.url).pathname;
const INPUT = 'The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background.';

const binary = (res: unknown, callback: (error: Error | null, body: Buffer) => void) => {
  const stream = res as NodeJS.ReadableStream;
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('end', () => callback(null, Buffer.concat(chunks)));
};

const wavSeconds = (wav: Buffer) => (wav.length - 44) / 2 / wav.readUInt32LE(24);

describe('Kokoro (random-weight fixture installed from a hub mirror)', function () {
  this.timeout(120_000);
  let hub: FakeHub;
  let dir: string;
  let app: TestApp;

  before(async () => {
    hub = await startHubMirror({ [REPO]: { files: folderFiles(FIXTURE), license: 'apache-2.0' } });
    dir = mkdtempSync(join(tmpdir(), 'lis-kokoro-'));
    const modelsDir = join(dir, 'models');
    const manifestPath = join(dir, 'models.json');
    writeFileSync(manifestPath, JSON.stringify({ models: [] }));
    let stderr = '';
    const code = await runDownloadModels([`hf:${REPO}`, '--hub-url', hub.url], {
      env: { MODELS_DIR: modelsDir, MODELS_MANIFEST: manifestPath },
      stdout: { write: () => true },
      stderr: { isTTY: false, write: (chunk: string) => (stderr += chunk) },
      hub: { connectTimeoutMs: 2000, idleTimeoutMs: 2000 },
    });
    expect(code, stderr).to.equal(0);
    app = await createTestApp({ manifest: await loadManifest(manifestPath, modelsDir), modelsDir });
  });
  after(async () => {
    await app?.close();
    await hub?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const speak = (body: object, path = '/v1/audio/speech') =>
    app.request
      .post(path)
      .set('Authorization', bearer())
      .send({ model: MODEL, input: INPUT, ...body })
      .buffer(true)
      .parse(binary);

  it('installs as engine kokoro: the q8 weights, tokenizer and every voice, each pinned by the SHA-256 the hub publishes', () => {
    const entry = JSON.parse(readFileSync(join(dir, 'models', MODEL, '.manifest-entry.json'), 'utf8'));
    expect(entry).to.deep.include({ id: MODEL, task: 'text-to-speech', engine: 'kokoro', license: 'apache-2.0' });
    expect(entry.options).to.deep.equal({ dtype: 'q8' });
    const files = entry.source.files as Array<{ path: string; sha256?: string; size: number }>;
    expect(files.map((file) => file.path)).to.have.members([
      'config.json',
      'tokenizer.json',
      'tokenizer_config.json',
      'onnx/model_quantized.onnx',
      ...['af_alloy', 'af_bella', 'af_heart', 'am_adam', 'am_onyx', 'bf_emma', 'ef_dora', 'jf_alpha'].map((voice) => `voices/${voice}.bin`),
    ]);
    for (const file of files.filter((file) => file.path.startsWith('voices/'))) {
      expect(file.size).to.equal(510 * 256 * 4);
      expect(file.sha256).to.match(/^[0-9a-f]{64}$/);
    }
  });

  it('lists its voices in GET /v1/models: the speakable ones, the OpenAI names and what each stands for', async () => {
    const res = await app.request.get(`/v1/models/${MODEL}`).set('Authorization', bearer());
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.include({ task: 'text-to-speech', installed: true, default_voice: 'af_heart', speed: { min: 0.25, max: 4 } });
    expect(res.body.voices).to.include.members(['af_heart', 'af_bella', 'am_adam', 'bf_emma', 'ef_dora', 'alloy', 'onyx', 'nova']);
    expect(res.body.voices).to.not.include('jf_alpha');
    // Namesakes where installed; otherwise the next choice or the default voice.
    expect(res.body.voice_aliases).to.deep.include({ alloy: 'af_alloy', onyx: 'am_onyx', nova: 'af_bella', echo: 'af_heart', ash: 'am_adam' });
  });

  it('speaks a Kokoro voice as streamed MP3 at 24 kHz', async () => {
    const res = await speak({ voice: 'af_heart' });
    expect(res.status, String(res.body)).to.equal(200);
    expect(res.headers['content-type']).to.equal('audio/mpeg');
    expect(res.headers['transfer-encoding']).to.equal('chunked');
    expect(res.headers['x-sample-rate']).to.equal('24000');
    expect(res.headers['x-model']).to.equal(MODEL);
    const audio = await decodeAudio(res.body as Buffer, { sampleRate: 24000, maxSeconds: 600 });
    expect(audio.samples.length / 24000).to.be.within(1, 60);
  });

  it('speaks for an OpenAI voice name, as the Kokoro voice it stands for', async () => {
    const alloy = await speak({ voice: 'alloy', response_format: 'wav' });
    const kokoro = await speak({ voice: 'af_alloy', response_format: 'wav' });
    expect(alloy.status, String(alloy.body)).to.equal(200);
    // Durations follow from the ids, the voice's style row and the speed alone (the vocoder's
    // source adds noise to the samples, as the real model's does), so the same voice gives the
    // same length.
    expect((alloy.body as Buffer).length).to.equal((kokoro.body as Buffer).length);
    const onyx = await speak({ voice: 'onyx', response_format: 'wav' });
    expect((onyx.body as Buffer).length).to.equal(((await speak({ voice: 'am_onyx', response_format: 'wav' })).body as Buffer).length);
  });

  for (const [format, type, sniffed] of [
    ['mp3', 'audio/mpeg', 'mp3'],
    ['opus', 'audio/ogg', 'ogg-opus'],
    ['aac', 'audio/aac', 'aac'],
    ['flac', 'audio/flac', 'flac'],
    ['wav', 'audio/wav', 'wav'],
  ] as const) {
    it(`answers ${format} (${type}) that decodes back to the length of the WAV`, async () => {
      const wav = await speak({ voice: 'bf_emma', response_format: 'wav' });
      const res = await speak({ voice: 'bf_emma', response_format: format });
      expect(res.status, String(res.body)).to.equal(200);
      expect(res.headers['content-type']).to.equal(type);
      expect(sniffAudioFormat(res.body as Buffer)).to.equal(sniffed);
      const decoded = await decodeAudio(res.body as Buffer, { sampleRate: 24000, maxSeconds: 600 });
      expect(decoded.samples.length / 24000 / wavSeconds(wav.body as Buffer)).to.be.within(0.9, 1.1);
    });
  }

  it('answers pcm: headerless 16-bit samples at 24 kHz, as many as the WAV holds', async () => {
    const wav = (await speak({ response_format: 'wav' })).body as Buffer;
    const res = await speak({ response_format: 'pcm' });
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.equal('audio/pcm');
    expect(wav.readUInt32LE(24)).to.equal(24000);
    expect((res.body as Buffer).length).to.equal(wav.length - 44);
  });

  it('gives longer audio for longer text and for a lower speed', async () => {
    const seconds = async (body: object) => wavSeconds((await speak({ response_format: 'wav', ...body })).body as Buffer);
    const short = await seconds({ input: 'The birch canoe.' });
    const long = await seconds({});
    expect(long).to.be.greaterThan(short * 2);
    const slow = await seconds({ speed: 0.5 });
    const fast = await seconds({ speed: 2 });
    expect(slow).to.be.greaterThan(long * 1.5);
    expect(fast).to.be.lessThan(long / 1.5);
  });

  it('streams sentence by sentence: several speech.audio.delta events for a text of several sentences', async () => {
    const res = await speak({ response_format: 'pcm', stream_format: 'sse', input: 'One sentence here. Another one there. And a third one.' });
    expect(res.status).to.equal(200);
    const events = (res.body as Buffer)
      .toString('utf8')
      .split('\n\n')
      .filter((block) => block.startsWith('data: '))
      .map((block) => JSON.parse(block.slice(6)) as { type: string });
    expect(events.filter((event) => event.type === 'speech.audio.delta').length).to.be.greaterThan(1);
    expect(events.at(-1)?.type).to.equal('speech.audio.done');
  });

  it('speaks a Spanish voice through espeak-ng es', async () => {
    const res = await speak({ voice: 'ef_dora', input: 'Hola, ¿cómo estás? Muy bien, gracias.', response_format: 'wav' });
    expect(res.status, String(res.body)).to.equal(200);
    expect(wavSeconds(res.body as Buffer)).to.be.greaterThan(0.5);
  });

  it('answers 400 listing the voices for an unknown voice', async () => {
    const res = await app.request.post('/v1/audio/speech').set('Authorization', bearer()).send({ model: MODEL, input: 'Hello.', voice: 'af_nobody' });
    expect(res.status).to.equal(400);
    expect(res.body.error.message).to.match(/^"voice" must be one of: af_alloy, af_bella, af_heart, .*alloy/);
  });

  it('answers 400 for a Japanese voice, whose phonemizer this server does not have', async () => {
    const res = await app.request.post('/v1/text-to-speech').set('Authorization', bearer()).send({ model: MODEL, input: 'Hello.', voice: 'jf_alpha' });
    expect(res.status).to.equal(400);
    expect(res.body.error.message).to.match(/^voice "jf_alpha" speaks Japanese, which needs a Japanese phonemizer .* this server does not have/);
  });
});
