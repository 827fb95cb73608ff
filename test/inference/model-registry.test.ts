import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INSTALL_MARKER, type Engine } from '../../src/inference/engine.js';
import type { Manifest, ManifestEntry } from '../../src/inference/manifest.js';
import { ModelRegistry } from '../../src/inference/model-registry.js';
import type { Classifier } from '../../src/inference/types.js';
import { bearer, createTestApp, type TestApp } from '../helpers/test-app.js';

/** A classifier engine whose load the test controls: it counts loads and can fail on demand. */
class ScriptedEngine implements Engine<'text-classification'> {
  readonly tasks = ['text-classification'] as const;
  loads = 0;
  disposed = 0;
  failNext: string | undefined;
  #release: (() => void) | undefined;
  #gate: Promise<void> | undefined;

  /** Holds every load until `release()`, so several callers overlap the same load. */
  hold(): void {
    this.#gate = new Promise((resolve) => (this.#release = resolve));
  }

  release(): void {
    this.#release?.();
    this.#gate = undefined;
  }

  async load(entry: ManifestEntry): Promise<Classifier> {
    this.loads += 1;
    await this.#gate;
    const failure = this.failNext;
    this.failNext = undefined;
    if (failure) throw new Error(failure);
    return {
      classify: async (text) => [
        { label: entry.id, confidence: 0.75 },
        { label: `len-${text.length}`, confidence: 0.25 },
      ],
      dispose: async () => {
        this.disposed += 1;
      },
    };
  }
}

const entry = (id: string, overrides: Partial<ManifestEntry> = {}): ManifestEntry => ({
  id,
  task: 'text-classification',
  engine: 'scripted',
  description: `${id} (test)`,
  license: 'mit',
  ...overrides,
});

const MANIFEST: Manifest = {
  models: [
    entry('sentiment'),
    entry('not-installed'),
    entry('test-only', { installCommand: 'npm run test-models' }),
    entry('a-translator', { task: 'translation' }),
  ],
};

function install(modelsDir: string, id: string): void {
  mkdirSync(join(modelsDir, id), { recursive: true });
  writeFileSync(join(modelsDir, id, INSTALL_MARKER), '{}');
}

describe('ModelRegistry', () => {
  let modelsDir: string;
  let engine: ScriptedEngine;
  let registry: ModelRegistry;

  beforeEach(() => {
    modelsDir = mkdtempSync(join(tmpdir(), 'lis-registry-'));
    install(modelsDir, 'sentiment');
    engine = new ScriptedEngine();
    registry = new ModelRegistry({ manifest: MANIFEST, modelsDir, engines: { scripted: engine } });
  });
  afterEach(async () => {
    await registry.close();
    rmSync(modelsDir, { recursive: true, force: true });
  });

  it('loads nothing until a model is first used', async () => {
    await registry.list();
    expect(engine.loads).to.equal(0);
  });

  it('loads a model once for concurrent first callers, who all get the same instance', async () => {
    engine.hold();
    const callers = Array.from({ length: 5 }, () => registry.get('sentiment', 'text-classification'));
    await new Promise((resolve) => setImmediate(resolve));
    engine.release();
    const models = await Promise.all(callers);
    expect(engine.loads).to.equal(1);
    expect(new Set(models).size).to.equal(1);
    await registry.get('sentiment', 'text-classification');
    expect(engine.loads).to.equal(1);
  });

  it('shares one failed load among concurrent callers and retries on the next call', async () => {
    engine.hold();
    engine.failNext = 'corrupt weights';
    const callers = [1, 2, 3].map(() => registry.get('sentiment', 'text-classification').catch((error: unknown) => error));
    await new Promise((resolve) => setImmediate(resolve));
    engine.release();
    const errors = (await Promise.all(callers)) as Array<{ code: string; status: number }>;
    expect(engine.loads).to.equal(1);
    expect(errors.map((error) => [error.status, error.code])).to.deep.equal(Array(3).fill([503, 'model_unavailable']));
    await registry.get('sentiment', 'text-classification');
    expect(engine.loads).to.equal(2);
  });

  it('reports loaded models and disposes them on close', async () => {
    await registry.get('sentiment', 'text-classification');
    const info = (await registry.list()).find((model) => model.id === 'sentiment');
    expect(info).to.include({ installed: true, loaded: true });
    await registry.close();
    expect(engine.disposed).to.equal(1);
    expect((await registry.list()).find((model) => model.id === 'sentiment')).to.include({ loaded: false });
  });

  it('refuses a manifest that names an engine it does not know', () => {
    expect(() => new ModelRegistry({ manifest: { models: [entry('x', { engine: 'nope' })] }, modelsDir, engines: {} })).to.throw(
      /unknown engine "nope"/,
    );
  });
});

describe('model errors over HTTP (POST /v1/classifications)', () => {
  let app: TestApp;
  let modelsDir: string;
  let engine: ScriptedEngine;

  beforeEach(async () => {
    modelsDir = mkdtempSync(join(tmpdir(), 'lis-registry-http-'));
    install(modelsDir, 'sentiment');
    engine = new ScriptedEngine();
    app = await createTestApp({ manifest: MANIFEST, modelsDir, engines: { scripted: engine } });
  });
  afterEach(async () => {
    await app.close();
    rmSync(modelsDir, { recursive: true, force: true });
  });

  const classify = (model: string) =>
    app.request.post('/v1/classifications').set('Authorization', bearer()).send({ model, query: 'great film' });

  it('answers 200 from the lazily loaded model', async () => {
    const res = await classify('sentiment');
    expect(res.status).to.equal(200);
    expect(res.body.labels[0]).to.deep.equal({ label: 'sentiment', confidence: 0.75 });
  });

  it('loads once when the first requests arrive together', async () => {
    engine.hold();
    const pending = Array.from({ length: 4 }, () => classify('sentiment').then((res) => res));
    await new Promise((resolve) => setTimeout(resolve, 50));
    engine.release();
    const answers = await Promise.all(pending);
    expect(answers.map((res) => res.status)).to.deep.equal([200, 200, 200, 200]);
    expect(engine.loads).to.equal(1);
  });

  it('answers 404 model_not_found in JSON for an unknown model, listing the ones for this task', async () => {
    const res = await classify('gpt-17');
    expect(res.status).to.equal(404);
    expect(res.headers['content-type']).to.match(/^application\/json/);
    expect(res.body.error.code).to.equal('model_not_found');
    expect(res.body.error.message).to.include('gpt-17').and.include('sentiment').and.not.include('a-translator');
  });

  it('answers 400 wrong_model_task for a model of another task', async () => {
    const res = await classify('a-translator');
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('wrong_model_task');
    expect(res.body.error.message).to.match(/translation/);
  });

  it('answers 503 model_not_installed naming the command that installs it', async () => {
    const res = await classify('not-installed');
    expect(res.status).to.equal(503);
    expect(res.body.error.code).to.equal('model_not_installed');
    expect(res.body.error.message).to.include('npm run download-models -- not-installed');
    const testOnly = await classify('test-only');
    expect(testOnly.body.error.message).to.include('npm run test-models');
    expect(engine.loads).to.equal(0);
  });

  it('works without a restart once the missing model is installed', async () => {
    expect((await classify('not-installed')).status).to.equal(503);
    install(modelsDir, 'not-installed');
    expect((await classify('not-installed')).status).to.equal(200);
  });

  it('answers 503 model_unavailable when loading fails, and loads again once fixed', async () => {
    engine.failNext = 'onnx: invalid protobuf';
    const failed = await classify('sentiment');
    expect(failed.status).to.equal(503);
    expect(failed.body.error.code).to.equal('model_unavailable');
    expect(failed.body.error.message).to.equal('Model "sentiment" failed to load; the server log has the reason');
    const fixed = await classify('sentiment');
    expect(fixed.status).to.equal(200);
    expect(engine.loads).to.equal(2);
  });
});
