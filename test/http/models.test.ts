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
      source: { type: 'huggingface', repo: 'org/sst2', revision: 'a'.repeat(40), files: [{ path: 'config.json' }] },
    },
    {
      id: 'other',
      task: 'text-classification',
      engine: 'scripted',
      description: 'not installed',
      license: 'mit',
      installCommand: 'npm run test-models',
    },
  ],
};

describe('GET /v1/models', () => {
  let app: TestApp;
  let modelsDir: string;

  before(async () => {
    modelsDir = mkdtempSync(join(tmpdir(), 'lis-models-'));
    mkdirSync(join(modelsDir, 'sst2'));
    writeFileSync(join(modelsDir, 'sst2', INSTALL_MARKER), '{}');
    app = await createTestApp({ manifest: MANIFEST, modelsDir, engines: { scripted: engine } });
  });
  after(async () => {
    await app.close();
    rmSync(modelsDir, { recursive: true, force: true });
  });

  const list = () => app.request.get('/v1/models').set('Authorization', bearer());

  it('lists every manifest model with its installed and loaded state', async () => {
    const res = await list();
    expect(res.status).to.equal(200);
    expect(res.body.object).to.equal('list');
    expect(res.body.data).to.deep.equal([
      {
        id: 'sst2',
        task: 'text-classification',
        engine: 'scripted',
        description: 'English sentiment',
        license: 'apache-2.0',
        default: true,
        installed: true,
        loaded: false,
        install: 'npm run download-models -- sst2',
        labels: ['NEGATIVE', 'POSITIVE'],
      },
      {
        id: 'other',
        task: 'text-classification',
        engine: 'scripted',
        description: 'not installed',
        license: 'mit',
        default: false,
        installed: false,
        loaded: false,
        install: 'npm run test-models',
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
