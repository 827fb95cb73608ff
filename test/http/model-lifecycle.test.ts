import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKeyStore } from '../../src/auth/key-store.js';
import { INSTALL_MARKER, type Engine } from '../../src/inference/engine.js';
import type { Manifest } from '../../src/inference/manifest.js';
import { bearer, createTestApp, type TestApp, type TestAppOptions } from '../helpers/test-app.js';
import { until } from '../helpers/until.js';

/**
 * A classification engine whose calls the test finishes by hand (to hold one in flight), and
 * whose loads and disposals it can see and hold.
 */
function scriptedEngine() {
  const events: string[] = [];
  const held: Array<() => void> = [];
  let loadGate: Promise<void> | undefined;
  const engine: Engine<'text-classification'> = {
    tasks: ['text-classification'],
    load: async (entry) => {
      await loadGate;
      events.push(`load ${entry.id}`);
      return {
        classify: async (text) => {
          if (text === 'hold') await new Promise<void>((resolve) => held.push(resolve));
          return [{ label: entry.id, confidence: 1 }];
        },
        dispose: async () => void events.push(`dispose ${entry.id}`),
      };
    },
  };
  return {
    engine,
    events,
    releaseHeld: () => held.splice(0).forEach((release) => release()),
    heldCount: () => held.length,
    holdLoads(): () => void {
      let open!: () => void;
      loadGate = new Promise((resolve) => (open = resolve));
      return () => {
        loadGate = undefined;
        open();
      };
    },
  };
}

const entry = (id: string, extra: object = {}) => ({ id, task: 'text-classification' as const, engine: 'scripted', description: id, license: 'mit', ...extra });
const MANIFEST: Manifest = {
  models: [entry('a'), entry('b'), entry('c'), entry('pinned', { idleTtl: -1 })],
  aliases: { 'best-a': { task: 'text-classification', prefer: ['a'] } },
};

function installedModelsDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lis-lifecycle-'));
  for (const model of MANIFEST.models) {
    mkdirSync(join(dir, model.id));
    writeFileSync(join(dir, model.id, INSTALL_MARKER), '{}');
  }
  return dir;
}

describe('model lifecycle', () => {
  let app: TestApp;
  let modelsDir: string;
  let scripted: ReturnType<typeof scriptedEngine>;
  let clock: number;

  async function start(registry: TestAppOptions['registry'] = {}): Promise<void> {
    scripted = scriptedEngine();
    clock = 1_000_000;
    app = await createTestApp({
      manifest: MANIFEST,
      modelsDir,
      engines: { scripted: scripted.engine },
      // Every model counts 100 bytes against the budget; no RSS measuring in tests.
      registry: { now: () => clock, rss: null, estimateBytes: async () => 100, ...registry },
    });
  }

  before(() => {
    modelsDir = installedModelsDir();
  });
  afterEach(async () => {
    scripted.releaseHeld();
    await app.close();
  });
  after(() => rmSync(modelsDir, { recursive: true, force: true }));

  const classify = (model: string, query = 'text') => app.request.post('/v1/classifications').set('Authorization', bearer()).send({ model, query });
  const states = async () => {
    const res = await app.request.get('/v1/models').set('Authorization', bearer());
    return Object.fromEntries((res.body.data as Array<{ id: string; state: string }>).filter((m) => !m.id.startsWith('best')).map((m) => [m.id, m.state]));
  };

  describe('idle time-out', () => {
    it('unloads a model unused for MODEL_IDLE_TTL, but not one whose manifest entry says never, nor one in use', async () => {
      await start({ idleTtlSeconds: 60 });
      for (const model of ['a', 'b', 'pinned']) expect((await classify(model)).status).to.equal(200);
      clock += 30_000;
      const held = classify('b', 'hold').then((res) => res);
      await until(() => scripted.heldCount() === 1, 'the held request');
      clock += 31_000;
      await app.models.unloadIdle();
      expect(await states()).to.deep.equal({ a: 'unloaded', b: 'loaded', c: 'unloaded', pinned: 'loaded' });
      expect(scripted.events).to.deep.equal(['load a', 'load b', 'load pinned', 'dispose a']);

      scripted.releaseHeld();
      expect((await held).status).to.equal(200);
      clock += 59_000;
      await app.models.unloadIdle();
      expect((await states()).b).to.equal('loaded');
      clock += 1_000;
      await app.models.unloadIdle();
      expect((await states()).b).to.equal('unloaded');
    });

    it('loads an unloaded model again on its next request, and reports the unloads in /metrics', async () => {
      await start({ idleTtlSeconds: 0 });
      expect((await classify('a')).status).to.equal(200);
      await app.models.unloadIdle();
      expect((await states()).a).to.equal('unloaded');
      const again = await classify('a');
      expect(again.status).to.equal(200);
      expect(again.body[0]?.[0]?.label ?? again.body.data?.[0]?.label ?? JSON.stringify(again.body)).to.include('a');
      expect(scripted.events).to.deep.equal(['load a', 'dispose a', 'load a']);
      const metrics = await app.request.get('/metrics').set('Authorization', bearer());
      expect(metrics.text).to.include('model_unloads_total{model="a",reason="idle"} 1');
    });

    it('shows last use and memory in GET /v1/models', async () => {
      await start();
      expect((await classify('a')).status).to.equal(200);
      const res = await app.request.get('/v1/models/a').set('Authorization', bearer());
      expect(res.body).to.include({ state: 'loaded', loaded: true, memory_bytes: 100, last_used_at: Math.floor(clock / 1000) });
      expect(res.body).to.include({ object: 'model', owned_by: 'local-inference-server', created: 0 });
    });
  });

  describe('memory budget', () => {
    it('unloads the least recently used idle models to make room', async () => {
      await start({ maxMemoryBytes: 250 });
      expect((await classify('a')).status).to.equal(200);
      clock += 1;
      expect((await classify('b')).status).to.equal(200);
      clock += 1;
      expect((await classify('a')).status).to.equal(200); // b is now the least recently used
      clock += 1;
      expect((await classify('c')).status).to.equal(200);
      expect(await states()).to.deep.equal({ a: 'loaded', b: 'unloaded', c: 'loaded', pinned: 'unloaded' });
      expect(scripted.events).to.deep.equal(['load a', 'load b', 'dispose b', 'load c']);
      const metrics = await app.request.get('/metrics').set('Authorization', bearer());
      expect(metrics.text).to.include('model_unloads_total{model="b",reason="memory"} 1');
      expect(metrics.text).to.include('model_memory_bytes{model="a",state="loaded"} 100');
      expect(metrics.text).not.to.include('model_memory_bytes{model="b"');
    });

    it('never evicts a busy model: 503 model_memory_exhausted when nothing can be freed, then the load succeeds once it is idle', async () => {
      await start({ maxMemoryBytes: 150 });
      const held = classify('a', 'hold').then((res) => res);
      await until(() => scripted.heldCount() === 1, 'the held request');
      const refused = await classify('b');
      expect(refused.status).to.equal(503);
      expect(refused.body.error.code).to.equal('model_memory_exhausted');
      expect(refused.body.error.message).to.include('MODELS_MAX_MEMORY');
      expect(refused.headers['retry-after']).to.equal('5');
      expect((await states()).a).to.equal('loaded');

      scripted.releaseHeld();
      expect((await held).status).to.equal(200);
      expect((await classify('b')).status).to.equal(200);
      expect(await states()).to.include({ a: 'unloaded', b: 'loaded' });
    });

    it('refuses a model larger than the whole budget with the same code', async () => {
      await start({ maxMemoryBytes: 50 });
      const refused = await classify('a');
      expect(refused.status).to.equal(503);
      expect(refused.body.error.code).to.equal('model_memory_exhausted');
      expect(refused.body.error.message).to.include('more than the whole memory budget');
    });
  });

  describe('preload and /readyz', () => {
    it('answers 503 until the preloaded models are loaded', async () => {
      await start();
      const open = scripted.holdLoads();
      const preloading = app.models.preload(['best-a', 'c']);
      const waiting = await app.request.get('/readyz');
      expect(waiting.status).to.equal(503);
      expect(waiting.text).to.include('loading models: best-a, c');
      open();
      await preloading;
      expect((await app.request.get('/readyz')).status).to.equal(200);
      expect(await states()).to.include({ a: 'loaded', c: 'loaded' });
    });

    it('becomes ready when a preload fails, and reports the failure', async () => {
      await start();
      const failures: string[] = [];
      await app.models.preload(['no-such-model'], (name) => failures.push(name));
      expect(failures).to.deep.equal(['no-such-model']);
      expect((await app.request.get('/readyz')).status).to.equal(200);
    });
  });

  describe('admin API', () => {
    it('loads and unloads by id or alias with an admin key', async () => {
      await start();
      const loaded = await app.request.post('/v1/models/best-a/load').set('Authorization', bearer());
      expect(loaded.status).to.equal(200);
      expect(loaded.body).to.include({ id: 'a', state: 'loaded', object: 'model' });
      expect((await states()).a).to.equal('loaded');

      const unloaded = await app.request.delete('/v1/models/a/load').set('Authorization', bearer());
      expect(unloaded.status).to.equal(200);
      expect(unloaded.body).to.include({ id: 'a', state: 'unloaded' });
      expect(scripted.events).to.deep.equal(['load a', 'dispose a']);
      // Unloading what is not loaded changes nothing.
      expect((await app.request.delete('/v1/models/a/load').set('Authorization', bearer())).status).to.equal(200);
      const metrics = await app.request.get('/metrics').set('Authorization', bearer());
      expect(metrics.text).to.include('model_unloads_total{model="a",reason="admin"} 1');
    });

    it('answers 404 for an unknown model and 409 for a busy one', async () => {
      await start();
      const unknown = await app.request.post('/v1/models/nope/load').set('Authorization', bearer());
      expect(unknown.status).to.equal(404);
      expect(unknown.body.error.code).to.equal('model_not_found');

      const held = classify('a', 'hold').then((res) => res);
      await until(() => scripted.heldCount() === 1, 'the held request');
      const busy = await app.request.delete('/v1/models/a/load').set('Authorization', bearer());
      expect(busy.status).to.equal(409);
      expect(busy.body.error.message).to.include('answering 1 request');
      scripted.releaseHeld();
      expect((await held).status).to.equal(200);
    });

    it('refuses keys that are not admin (403 admin_required) and requests without a key (401)', async () => {
      await start();
      const { key } = await createKeyStore(app.db, { staticKeys: [] }).create('user');
      for (const method of ['post', 'delete'] as const) {
        const forbidden = await app.request[method]('/v1/models/a/load').set('Authorization', `Bearer ${key}`);
        expect(forbidden.status).to.equal(403);
        expect(forbidden.body.error.code).to.equal('admin_required');
        expect((await app.request[method]('/v1/models/a/load')).status).to.equal(401);
      }
      expect(scripted.events).to.deep.equal([]);
      const { key: admin } = await createKeyStore(app.db, { staticKeys: [] }).create('ops', { admin: true });
      expect((await app.request.post('/v1/models/a/load').set('Authorization', `Bearer ${admin}`)).status).to.equal(200);
    });
  });
});
