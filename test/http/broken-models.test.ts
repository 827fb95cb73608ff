/**
 * A broken model never takes the process down: real tiny models copied into a temp MODELS_DIR
 * and damaged as a real disk or a half-done install damages them (external weights missing or
 * cut short, a corrupt config.json, a corrupt Silero VAD file, a folder the server may not read),
 * each answered over HTTP with a 503 naming the model, the file and the fix, while a healthy
 * model in the same server still answers afterwards.
 */
import { expect } from 'chai';
import { type Dirent, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { ModelFilesError } from '../../src/errors.js';
import { createLogger } from '../../src/logger.js';
import { loadFrameScorers } from '../../src/inference/live-audio/frame-scorers.js';
import { ModelFolderCheck, type FileAccess } from '../../src/inference/model-folder-check.js';
import type { Manifest, ManifestEntry } from '../../src/inference/manifest.js';
import { REPO_ROOT, sine } from '../audio/audio-test-helpers.js';
import { outlineWeights } from '../helpers/onnx-outline.js';
import { connect, listen, stopListening, withBetaKey } from '../helpers/realtime-client.js';
import { bearer, createTestApp, type TestApp } from '../helpers/test-app.js';
import * as fs from 'node:fs/promises';

const { WaveFile } = createRequire(import.meta.url)('wavefile') as typeof import('wavefile');
const FIXTURES = join(REPO_ROOT, 'test/fixtures/models');

const whisper = (id: string): ManifestEntry => ({
  id,
  task: 'speech-to-text',
  engine: 'transformers-asr',
  description: 'random Whisper',
  license: 'MIT',
  options: { maxNewTokens: 4 },
});
const MANIFEST: Manifest = {
  models: [
    whisper('whisper-healthy'),
    whisper('whisper-no-weights'),
    whisper('whisper-cut-weights'),
    {
      id: 'sentiment-bad-config',
      task: 'text-classification',
      engine: 'transformers-text-classification',
      description: 'fixture',
      license: 'test',
      options: { labels: ['negative', 'positive'], workers: 1 },
    },
    { id: 'silero-vad-v6', task: 'voice-activity-detection', engine: 'silero-vad', description: 'corrupt', license: 'MIT' },
  ],
};

/** A copy of the random Whisper fixture whose encoder keeps its weights in `encoder_model.onnx_data`, as the real models do. */
function whisperWithExternalWeights(modelsDir: string, id: string): string {
  const dir = join(modelsDir, id);
  cpSync(join(FIXTURES, 'whisper-tiny-random'), dir, { recursive: true });
  const graph = join(dir, 'onnx/encoder_model.onnx');
  const outlined = outlineWeights(readFileSync(graph), 'encoder_model.onnx_data');
  writeFileSync(graph, outlined.graph);
  writeFileSync(`${graph}_data`, outlined.data);
  return `${graph}_data`;
}

function wavBytes(seconds = 1): Buffer {
  const wav = new WaveFile();
  wav.fromScratch(
    1,
    16000,
    '16',
    Int16Array.from(sine(440, 16000, seconds), (x) => Math.round(x * 32767)),
  );
  return Buffer.from(wav.toBuffer());
}

describe('broken models over HTTP (damaged copies of the fixture models)', function () {
  this.timeout(60_000);
  let dir: string;
  let modelsDir: string;
  let app: TestApp;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lis-broken-'));
    modelsDir = join(dir, 'models');
    whisperWithExternalWeights(modelsDir, 'whisper-healthy');
    rmSync(whisperWithExternalWeights(modelsDir, 'whisper-no-weights'));
    const cut = whisperWithExternalWeights(modelsDir, 'whisper-cut-weights');
    truncateSync(cut, Math.floor(readFileSync(cut).length / 2));
    cpSync(join(FIXTURES, 'bert-sentiment-random'), join(modelsDir, 'sentiment-bad-config'), { recursive: true });
    const config = join(modelsDir, 'sentiment-bad-config/config.json');
    writeFileSync(config, readFileSync(config, 'utf8').slice(0, 40));
    // A Silero VAD file cut short, as an interrupted download leaves it (any ONNX graph will do).
    mkdirSync(join(modelsDir, 'silero-vad-v6'));
    writeFileSync(join(modelsDir, 'silero-vad-v6/.installed.json'), '{"id":"silero-vad-v6"}');
    writeFileSync(join(modelsDir, 'silero-vad-v6/silero_vad_v6.onnx'), readFileSync(join(FIXTURES, 'piper-random/piper-random.onnx')).subarray(0, 5000));
    app = await createTestApp({ manifest: MANIFEST, modelsDir });
  });
  after(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const transcribe = (model: string, fields: Record<string, string> = {}) => {
    let request = app.request.post('/v1/audio/transcriptions').set('Authorization', bearer()).field('model', model);
    for (const [name, value] of Object.entries(fields)) request = request.field(name, value);
    return request.attach('file', wavBytes(), 'tone.wav');
  };
  const expectHealthyAnswers = async () => {
    const res = await transcribe('whisper-healthy', { vad_filter: 'false' });
    expect(res.status, res.text).to.equal(200);
  };
  const expectFilesError = (res: { status: number; body: { error?: { code?: string; message?: string; type?: string } } }, pattern: RegExp) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(503);
    expect(res.body.error?.code).to.equal('model_unavailable');
    expect(res.body.error?.type).to.equal('service_unavailable_error');
    expect(res.body.error?.message).to.match(pattern);
  };

  it('answers a model whose external weights are missing with 503 naming the model, the file and the fix', async () => {
    const res = await transcribe('whisper-no-weights');
    expectFilesError(
      res,
      /^Model "whisper-no-weights" cannot be loaded: whisper-no-weights\/onnx\/encoder_model\.onnx_data is missing \(needed by onnx\/encoder_model\.onnx \(\d+ bytes\)\)\. Reinstall it: npm run download-models -- whisper-no-weights$/,
    );
    await expectHealthyAnswers();
  });

  it('answers a model whose external weights are cut short with 503 saying how short', async () => {
    const res = await transcribe('whisper-cut-weights');
    expectFilesError(
      res,
      /^Model "whisper-cut-weights" cannot be loaded: whisper-cut-weights\/onnx\/encoder_model\.onnx_data is cut short \(needed by onnx\/encoder_model\.onnx: \d+ bytes, has \d+\)\. Reinstall it/,
    );
    // Asked again, the same answer (the check's result is kept while the files stay as they are).
    expectFilesError(await transcribe('whisper-cut-weights'), /is cut short/);
    await expectHealthyAnswers();
  });

  it('answers a model whose config.json is corrupt with 503 naming that file', async () => {
    const res = await app.request.post('/v1/classifications').set('Authorization', bearer()).send({ model: 'sentiment-bad-config', query: 'good' });
    expectFilesError(
      res,
      /^Model "sentiment-bad-config" cannot be loaded: sentiment-bad-config\/config\.json is not valid JSON .*Reinstall it: npm run download-models -- sentiment-bad-config$/,
    );
    await expectHealthyAnswers();
  });

  it('answers vad_filter=true with a corrupt Silero VAD with 503 naming the VAD model and its file; without it the model transcribes', async () => {
    const res = await transcribe('whisper-healthy', { vad_filter: 'true' });
    expectFilesError(
      res,
      /^Model "silero-vad-v6" cannot be loaded: silero-vad-v6\/silero_vad_v6\.onnx is not a readable ONNX graph .*Reinstall it: npm run download-models -- silero-vad-v6$/,
    );
    await expectHealthyAnswers();
    // Short audio, not asking for the filter: its no-speech check is skipped, Whisper answers.
    const unasked = await transcribe('whisper-healthy');
    expect(unasked.status, unasked.text).to.equal(200);
  });

  it('names the VAD model when its file is a whole ONNX graph of another model, in vad_filter and in realtime streams', async () => {
    const file = join(modelsDir, 'silero-vad-v6/silero_vad_v6.onnx');
    const cut = readFileSync(file);
    writeFileSync(file, readFileSync(join(FIXTURES, 'piper-random/piper-random.onnx')));
    try {
      const res = await transcribe('whisper-healthy', { vad_filter: 'true' });
      expectFilesError(
        res,
        /^Model "silero-vad-v6" cannot be loaded: silero-vad-v6\/silero_vad_v6\.onnx cannot be opened as Silero VAD v6 \(.*no "h" input.*\)\. Reinstall it/,
      );
      // Realtime streams that detect speech fail naming it; the others still convert audio.
      const scorers = await loadFrameScorers({ vadModelPath: file });
      expect(() => scorers.open()).to.throw(ModelFilesError, /Model "silero-vad-v6" cannot be loaded/);
      await scorers.dispose();
    } finally {
      writeFileSync(file, cut);
    }
    await expectHealthyAnswers();
  });

  it('is fixed without a restart once the files are whole again', async () => {
    const data = join(modelsDir, 'whisper-no-weights/onnx/encoder_model.onnx_data');
    cpSync(join(modelsDir, 'whisper-healthy/onnx/encoder_model.onnx_data'), data);
    const res = await transcribe('whisper-no-weights');
    expect(res.status, res.text).to.equal(200);
  });
});

describe('model folders the server may not read', () => {
  let dir: string;
  let modelsDir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'lis-unreadable-'));
    modelsDir = join(dir, 'models');
    cpSync(join(FIXTURES, 'piper-random'), join(modelsDir, 'piper-random'), { recursive: true });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** The real file system, but `refused` paths answer EACCES as they would to a user without the rights (tests run as root too). */
  const refusing = (refused: string): FileAccess => {
    const deny = async (path: string) => {
      if (path === refused || path.startsWith(`${refused}/`)) throw Object.assign(new Error(`EACCES: permission denied, ${path}`), { code: 'EACCES' });
    };
    return {
      readdir: async (path) => (await deny(path), (await fs.readdir(path, { withFileTypes: true })) as Dirent[]),
      stat: async (path) => (await deny(path), fs.stat(path)),
      access: async (path, mode) => (await deny(path), fs.access(path, mode)),
    };
  };
  /** A speech request for `model` (the voice's id, or the alias `tts-1` standing for it) in a server over `folder`. */
  const speak = async (filesCheck: ModelFolderCheck, model = 'piper-random', folder = modelsDir) => {
    const manifest: Manifest = {
      models: [{ id: 'piper-random', task: 'text-to-speech', engine: 'piper', description: 'fixture', license: 'test' }],
      aliases: { 'tts-1': { task: 'text-to-speech', prefer: ['piper-random'] } },
    };
    const app = await createTestApp({ manifest, modelsDir: folder, registry: { filesCheck } });
    try {
      return await app.request.post('/v1/audio/speech').set('Authorization', bearer()).send({ model, input: 'hi', voice: 'default' });
    } finally {
      await app.close();
    }
  };

  it('says permission denied naming the model folder, not "not installed"', async () => {
    const res = await speak(new ModelFolderCheck(refusing(join(modelsDir, 'piper-random'))));
    expect(res.status).to.equal(503);
    expect(res.body.error.code).to.equal('model_unavailable');
    expect(res.body.error.message).to.match(
      /^Model "piper-random" cannot be loaded: piper-random cannot be read: permission denied\. Let the server's user read it/,
    );
  });

  it('names MODELS_DIR when the models folder itself is refused', async () => {
    const res = await speak(new ModelFolderCheck(refusing(modelsDir)));
    expect(res.status).to.equal(503);
    expect(res.body.error.message).to.match(/^Model "piper-random" cannot be loaded: the models folder \(MODELS_DIR\) cannot be read: permission denied/);
  });

  it('names one unreadable file of the folder', async () => {
    const res = await speak(new ModelFolderCheck(refusing(join(modelsDir, 'piper-random/piper-random.onnx.json'))));
    expect(res.status).to.equal(503);
    expect(res.body.error.message).to.match(/piper-random\/piper-random\.onnx\.json cannot be read: permission denied/);
  });

  it('says permission denied for an alias as for the id when the refused folder hides its install marker', async () => {
    // What a user without the rights sees: the marker cannot be read, so the model reads as not
    // installed. Root reads anything, so here the marker is gone and the folder's refusal injected.
    const hidden = join(dir, 'hidden-models');
    cpSync(join(FIXTURES, 'piper-random'), join(hidden, 'piper-random'), { recursive: true });
    rmSync(join(hidden, 'piper-random/.installed.json'));
    const check = new ModelFolderCheck(refusing(join(hidden, 'piper-random')));
    const byId = await speak(check, 'piper-random', hidden);
    const byAlias = await speak(check, 'tts-1', hidden);
    for (const res of [byId, byAlias]) {
      expect(res.status).to.equal(503);
      expect(res.body.error.code).to.equal('model_unavailable');
    }
    expect(byId.body.error.message).to.match(
      /^Model "piper-random" cannot be loaded: piper-random cannot be read: permission denied\. Let the server's user read it/,
    );
    expect(byAlias.body.error.message).to.equal(byId.body.error.message);
  });

  it('still says not installed, under the alias, when the folder is simply absent', async () => {
    const res = await speak(new ModelFolderCheck(), 'tts-1', join(dir, 'no-models'));
    expect(res.status).to.equal(503);
    expect(res.body.error.code).to.equal('model_not_installed');
    expect(res.body.error.message).to.equal('Model "tts-1" is not installed. Run: npm run download-models -- piper-random');
  });

  for (const model of ['piper-random', 'tts-1']) {
    it(`says permission denied for a real chmod 000 folder when not run as root (${model})`, async function () {
      if (process.getuid?.() === 0) this.skip(); // root reads anything; the injected refusals above stand in
      const folder = join(modelsDir, 'piper-random');
      await fs.chmod(folder, 0o000);
      try {
        const res = await speak(new ModelFolderCheck(), model);
        expect(res.status).to.equal(503);
        expect(res.body.error.message).to.match(/piper-random cannot be read: permission denied/);
      } finally {
        await fs.chmod(folder, 0o755);
      }
    });
  }
});

describe('a corrupt Silero VAD in realtime sessions', () => {
  const logLines: string[] = [];
  let dir: string;
  let app: TestApp;
  let server: Server;
  let base: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lis-broken-vad-'));
    const vadDir = join(dir, 'models/silero-vad-v6');
    mkdirSync(vadDir, { recursive: true });
    writeFileSync(join(vadDir, '.installed.json'), '{"id":"silero-vad-v6"}');
    writeFileSync(join(vadDir, 'silero_vad_v6.onnx'), readFileSync(join(FIXTURES, 'piper-random/piper-random.onnx')).subarray(0, 5000));
    app = await createTestApp({ modelsDir: join(dir, 'models'), logger: createLogger('warn', (line) => logLines.push(line)) });
    ({ server, url: base } = await listen(app));
  });
  after(async () => {
    await stopListening(app, server);
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers audio of a server-VAD session with an error event naming the VAD model and its file; the session stays open', async () => {
    const client = await connect(`${base}/v1/realtime?intent=transcription`, withBetaKey());
    await client.next('transcription_session.created');
    client.send({ type: 'transcription_session.update', session: { turn_detection: { type: 'server_vad' } } });
    await client.next('transcription_session.updated');
    const from = client.events.length;
    client.send({ type: 'input_audio_buffer.append', audio: Buffer.alloc(4800).toString('base64') });
    const error = (await client.next('error', from)).error as { code: string; message: string };
    expect(error.code).to.equal('model_unavailable');
    expect(error.message).to.match(/^Model "silero-vad-v6" cannot be loaded: silero-vad-v6\/silero_vad_v6\.onnx is not a readable ONNX graph .*Reinstall it/);
    // The session is still open and answers.
    const later = client.events.length;
    client.send({ type: 'transcription_session.update', session: { turn_detection: null } });
    await client.next('transcription_session.updated', later);
    client.ws.close();
  });

  it('logs one warning a session naming the VAD model and why, however many appends fail; each append still gets its error event', async () => {
    const client = await connect(`${base}/v1/realtime?intent=transcription`, withBetaKey());
    const created = await client.next('transcription_session.created');
    const sessionId = (created.session as { id: string }).id;
    client.send({ type: 'transcription_session.update', session: { turn_detection: { type: 'server_vad' } } });
    await client.next('transcription_session.updated');
    const from = client.events.length;
    for (let i = 0; i < 5; i++) client.send({ type: 'input_audio_buffer.append', audio: Buffer.alloc(4800).toString('base64') });
    client.send({ type: 'transcription_session.update', session: { turn_detection: null } });
    await client.next('transcription_session.updated', from);
    expect(client.events.slice(from).filter((event) => event.type === 'error')).to.have.length(5);
    const warnings = logLines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.session === sessionId);
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.include({ level: 'warn', model: 'silero-vad-v6' });
    expect(warnings[0]!.message).to.match(/^Model "silero-vad-v6" cannot be loaded: silero-vad-v6\/silero_vad_v6\.onnx is not a readable ONNX graph/);
    client.ws.close();
  });
});
