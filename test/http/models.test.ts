import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INSTALL_MARKER, type Engine } from '../../src/inference/engine.js';
import type { Manifest } from '../../src/inference/manifest.js';
import { bearer, createTestApp, type TestApp } from '../helpers/test-app.js';

const engine: Engine<'text-classification'> = {
  tasks: ['text-classification'],
  load: async () => ({ classify: async () => [{ label: 'POSITIVE', confidence: 1 }], dispose: async () => {} }),
  describe: () => ({ labels: ['NEGATIVE', 'POSITIVE'] }),
};

const MANIFEST: Manifest = {
  models: [
    {
      id: 'sst2',
      task: 'text-classification',
      engine: 'scripted',
      description: 'English sentiment',
      license: 'apache-2.0',
      default: true,
      source: {
        type: 'huggingface',
        repo: 'org/sst2',
        revision: 'a'.repeat(40),
        files: [
          { path: 'config.json', size: 120 },
          { path: 'model.onnx', size: 880 },
        ],
      },
    },
    {
      id: 'other',
      task: 'text-classification',
      engine: 'scripted',
      description: 'not installed',
      license: 'mit',
      installCommand: 'npm run test-models',
      languages: ['en', 'es'],
      realWeightsRunHere: true,
      diskSize: { bytes: 5000, from: 'du -sb of its folder' },
    },
  ],
};

/** The same models with aliases: one that prefers the missing model, one with nothing installed. */
const translationEngine: Engine<'translation'> = {
  tasks: ['translation'],
  load: async () => ({ targetLanguages: ['es'], translate: async () => 'hola', dispose: async () => {} }),
};
const WITH_ALIASES: Manifest = {
  models: [
    ...MANIFEST.models,
    { id: 'mt-absent', task: 'translation', engine: 'scripted-mt', description: 'absent', license: 'mit', installCommand: 'npm run test-models' },
  ],
  aliases: {
    'gpt-sentiment': { task: 'text-classification', prefer: ['other', 'sst2'] },
    'nothing-here': { task: 'translation', prefer: [] },
  },
};

/** A models folder where only `sst2` is installed. */
function modelsDirWithSst2(): string {
  const modelsDir = mkdtempSync(join(tmpdir(), 'lis-models-'));
  mkdirSync(join(modelsDir, 'sst2'));
  writeFileSync(join(modelsDir, 'sst2', INSTALL_MARKER), '{}');
  return modelsDir;
}

describe('GET /v1/models', () => {
  let app: TestApp;
  let modelsDir: string;

  before(async () => {
    modelsDir = modelsDirWithSst2();
    app = await createTestApp({ manifest: MANIFEST, modelsDir, engines: { scripted: engine } });
  });
  after(async () => {
    await app.close();
    rmSync(modelsDir, { recursive: true, force: true });
  });

  const list = () => app.request.get('/v1/models').set('Authorization', bearer());

  it('lists every manifest model with its installed and loaded state, size, languages and real-weights status', async () => {
    const res = await list();
    expect(res.status).to.equal(200);
    expect(res.body.object).to.equal('list');
    expect(res.body.data).to.deep.equal([
      {
        id: 'sst2',
        object: 'model',
        created: 0,
        owned_by: 'local-inference-server',
        task: 'text-classification',
        engine: 'scripted',
        description: 'English sentiment',
        license: 'apache-2.0',
        default: true,
        installed: true,
        loaded: false,
        state: 'unloaded',
        memory_bytes: null,
        last_used_at: null,
        install: 'npm run download-models -- sst2',
        size_bytes: 1000,
        languages: null,
        real_weights_run_here: false,
        labels: ['NEGATIVE', 'POSITIVE'],
      },
      {
        id: 'other',
        object: 'model',
        created: 0,
        owned_by: 'local-inference-server',
        task: 'text-classification',
        engine: 'scripted',
        description: 'not installed',
        license: 'mit',
        default: false,
        installed: false,
        loaded: false,
        state: 'unloaded',
        memory_bytes: null,
        last_used_at: null,
        install: 'npm run test-models',
        size_bytes: 5000,
        languages: ['en', 'es'],
        real_weights_run_here: true,
        labels: ['NEGATIVE', 'POSITIVE'],
      },
    ]);
  });

  it('shows a model as loaded after its first use', async () => {
    const used = await app.request.post('/v1/classifications').set('Authorization', bearer()).send({ model: 'sst2', query: 'good' });
    expect(used.status).to.equal(200);
    const res = await list();
    expect(res.body.data.map((model: { id: string; loaded: boolean }) => [model.id, model.loaded])).to.deep.equal([
      ['sst2', true],
      ['other', false],
    ]);
  });

  it('answers 401 without an API key', async () => {
    const res = await app.request.get('/v1/models');
    expect(res.status).to.equal(401);
    expect(res.body.error.code).to.equal('unauthorized');
  });
});

describe('install command of a model with a hub source and another install script', () => {
  // The manifest's installCommand is how to install a model "when not from the hub"; with a hub
  // source the answer is download-models, as `npm run download-models -- --list` says.
  const both: Manifest = {
    models: [
      {
        id: 'voice',
        task: 'text-classification',
        engine: 'scripted',
        description: 'hub and PyPI',
        license: 'mit',
        installCommand: 'bash scripts/test-models/voice.sh',
        source: { type: 'huggingface', repo: 'org/voice', revision: 'b'.repeat(40), files: [{ path: 'model.onnx' }] },
      },
    ],
  };
  let app: TestApp;
  let modelsDir: string;
  before(async () => {
    modelsDir = mkdtempSync(join(tmpdir(), 'lis-models-'));
    app = await createTestApp({ manifest: both, modelsDir, engines: { scripted: engine } });
  });
  after(async () => {
    await app.close();
    rmSync(modelsDir, { recursive: true, force: true });
  });

  it('names download-models in GET /v1/models and in the 503', async () => {
    const listed = await app.request.get('/v1/models/voice').set('Authorization', bearer());
    expect(listed.body.install).to.equal('npm run download-models -- voice');
    const res = await app.request.post('/v1/classifications').set('Authorization', bearer()).send({ model: 'voice', query: 'x' });
    expect(res.status).to.equal(503);
    expect(res.body.error.message).to.equal('Model "voice" is not installed. Run: npm run download-models -- voice');
  });
});

describe('model aliases and GET /v1/models/{id}', () => {
  let app: TestApp;
  let modelsDir: string;
  before(async () => {
    modelsDir = modelsDirWithSst2();
    app = await createTestApp({ manifest: WITH_ALIASES, modelsDir, engines: { scripted: engine, 'scripted-mt': translationEngine } });
  });
  after(async () => {
    await app.close();
    rmSync(modelsDir, { recursive: true, force: true });
  });
  const get = (path: string) => app.request.get(path).set('Authorization', bearer());

  it('resolves an alias to its first installed candidate, and serves requests with it', async () => {
    const alias = (await get('/v1/models/gpt-sentiment')).body;
    expect(alias).to.deep.include({ id: 'gpt-sentiment', object: 'model', alias_of: 'sst2', installed: true, task: 'text-classification' });
    const res = await app.request.post('/v1/classifications').set('Authorization', bearer()).send({ model: 'gpt-sentiment', query: 'Great!' });
    expect(res.status).to.equal(200);
    // The answer names the installed model that ran, whatever the body's shape.
    expect(res.headers['x-model']).to.equal('sst2');
  });

  it('answers 503 naming the install command when no candidate is installed', async () => {
    expect((await get('/v1/models/nothing-here')).body).to.deep.include({ installed: false, alias_of: null, task: 'translation' });
    const res = await app.request
      .post('/v1/engines/nothing-here/translate')
      .set('Authorization', bearer())
      .send({ model: 'nothing-here', text: 'Hello', target_language: 'es' });
    expect(res.status).to.equal(503);
    expect(res.body.error.code).to.equal('model_not_installed');
    expect(res.body.error.message).to.match(/npm run test-models/);
  });

  it('lists installed models only on request, and names only installed models in a 404', async () => {
    const installed = (await get('/v1/models?installed=true')).body.data.map((m: { id: string }) => m.id);
    expect(installed).to.deep.equal(['sst2', 'gpt-sentiment']);
    const unknown = await get('/v1/models/nope');
    expect(unknown.status).to.equal(404);
    expect(unknown.body.error.message).to.equal('Unknown model "nope". Known models: sst2, gpt-sentiment');
    const res = await app.request.post('/v1/classifications').set('Authorization', bearer()).send({ model: 'nope', query: 'x' });
    expect(res.body.error.message).to.equal('Unknown model "nope". Known models: sst2, gpt-sentiment');
  });
});
