import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INSTALL_MARKER, type Engine } from '../../../src/inference/engine.js';
import { planEviction, type Budgeted } from '../../../src/inference/lifecycle/memory-budget.js';
import type { ManifestEntry } from '../../../src/inference/manifest.js';
import { ModelRegistry, type ModelRegistryOptions, type UnloadEvent } from '../../../src/inference/model-registry.js';

const IDS = ['a', 'b', 'c'];

/**
 * A process whose RSS the test sets: each load of a model adds `load` bytes, that instance's first
 * call `warmup` more (a fifth of it for the text 'short'), its dispose gives both back. A call on
 * the text 'hold' waits for `release()`.
 */
function fakeProcess(load: number, warmup: number) {
  const state = { rss: 1_000 };
  const held: Array<() => void> = [];
  const engine: Engine<'text-classification'> = {
    tasks: ['text-classification'],
    load: async () => {
      state.rss += load;
      let grown = load;
      return {
        classify: async (text) => {
          if (grown === load) {
            const growth = text === 'short' ? warmup / 5 : warmup;
            state.rss += growth;
            grown += growth;
          }
          if (text === 'hold') await new Promise<void>((resolve) => held.push(resolve));
          return [];
        },
        dispose: async () => {
          state.rss -= grown;
        },
      };
    },
  };
  return { state, engine, heldCount: () => held.length, release: () => held.splice(0).forEach((resolve) => resolve()) };
}

const entry = (id: string): ManifestEntry => ({ id, task: 'text-classification', engine: 'fake', description: '', license: '' });
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the memory budget against measured memory', () => {
  let modelsDir: string;
  let registry: ModelRegistry;
  let clock: number;
  let unloads: UnloadEvent[];

  before(() => {
    modelsDir = mkdtempSync(join(tmpdir(), 'lis-budget-'));
    for (const id of IDS) {
      mkdirSync(join(modelsDir, id));
      writeFileSync(join(modelsDir, id, INSTALL_MARKER), '{}');
    }
  });
  after(() => rmSync(modelsDir, { recursive: true, force: true }));
  afterEach(() => registry.close());

  /** Every model's files are guessed at 10 bytes: far less than it measures, as for real models. */
  function start(engine: Engine, options: Partial<ModelRegistryOptions> & { rss: () => number }): void {
    clock = 1_000;
    unloads = [];
    registry = new ModelRegistry({
      manifest: { models: IDS.map(entry) },
      modelsDir,
      engines: { fake: engine },
      now: () => clock,
      estimateBytes: async () => 10,
      ...options,
    });
    registry.onUnload((event) => unloads.push(event));
  }

  const counted = () => registry.residents().reduce((sum, resident) => sum + resident.bytes, 0);
  const use = async (id: string, text = 'text') => {
    clock += 1;
    await (await registry.get(id, 'text-classification')).classify(text);
    await settle();
  };

  it('unloads the least recently used idle model once a measured load passes the budget', async () => {
    const fake = fakeProcess(100, 50);
    start(fake.engine, { rss: () => fake.state.rss, maxMemoryBytes: 350 });
    await use('a');
    await use('b');
    expect(counted()).to.equal(300);
    // c's files (10 bytes) fit next to a and b; what its load measures does not.
    clock += 1;
    await registry.get('c', 'text-classification');
    await settle();
    expect(unloads).to.deep.equal([{ modelId: 'a', task: 'text-classification', reason: 'memory', memoryBytes: 150 }]);
    expect(registry.residents().map((resident) => resident.id)).to.deep.equal(['b', 'c']);
    await use('c');
    expect(counted()).to.equal(300);
    expect(fake.state.rss - 1_000).to.equal(300);
  });

  it('unloads the least recently used idle model once a first call’s growth passes the budget', async () => {
    const fake = fakeProcess(50, 100);
    start(fake.engine, { rss: () => fake.state.rss, maxMemoryBytes: 350 });
    await use('a');
    await use('b');
    clock += 1;
    const c = await registry.get('c', 'text-classification');
    await settle();
    expect(counted()).to.equal(350);
    expect(unloads).to.deep.equal([]);
    await c.classify('first');
    await settle();
    expect(unloads.map((event) => [event.modelId, event.reason])).to.deep.equal([['a', 'memory']]);
    expect(counted()).to.equal(300);
  });

  it('refuses other loads (503) while a model past the budget answers, and unloads it when its call ends', async () => {
    const fake = fakeProcess(130, 0);
    start(fake.engine, { rss: () => fake.state.rss, maxMemoryBytes: 120 });
    // Admitted on its files' size; the caller that waited for the load still gets its answer.
    const a = await registry.get('a', 'text-classification');
    const call = a.classify('hold');
    expect(fake.heldCount()).to.equal(1);
    const refused = await registry.get('b', 'text-classification').catch((error: { status?: number; code?: string }) => error);
    expect(refused).to.include({ status: 503, code: 'model_memory_exhausted' });
    expect(unloads).to.deep.equal([]);

    fake.release();
    await call;
    await settle();
    expect(unloads.map((event) => [event.modelId, event.reason])).to.deep.equal([['a', 'memory']]);
    expect(registry.residents()).to.deep.equal([]);
    // Now that a is known to need more than the whole budget, it is refused before it loads.
    const whole = await registry.get('a', 'text-classification').catch((error: { message?: string }) => error);
    expect((whole as Error).message).to.include('more than the whole memory budget');
  });

  it('counts a reloaded model at its last load plus its first call’s growth, and does not add that growth twice', async () => {
    const fake = fakeProcess(100, 50);
    start(fake.engine, { rss: () => fake.state.rss });
    await use('a');
    expect(counted()).to.equal(150);
    await registry.unload('a');
    await registry.get('a', 'text-classification');
    // Before its first call, the reload counts the warm-up it will need again.
    expect(counted()).to.equal(150);
    await use('a');
    expect(counted()).to.equal(150);
    expect((await registry.list()).find((model) => model.id === 'a')!.memory_bytes).to.equal(150);
    // A first call that grows it less (a short input) leaves the larger warm-up counted.
    await registry.unload('a');
    await use('a', 'short');
    expect(counted()).to.equal(150);
  });

  it('keeps the estimates of loads that overlap (their RSS growth cannot be told apart)', async () => {
    const fake = fakeProcess(100, 50);
    start(fake.engine, { rss: () => fake.state.rss });
    await Promise.all(['a', 'b'].map((id) => registry.get(id, 'text-classification')));
    expect(registry.residents().map((resident) => resident.bytes)).to.deep.equal([10, 10]);
  });
});

describe('planEviction', () => {
  const model = (bytes: number, lastUsed: number, state: Budgeted['state'] = 'loaded', busy = 0) => ({ bytes, lastUsed, state, busy });

  it('picks idle models, least recently used first, until the incoming bytes fit', () => {
    const older = model(100, 1);
    const newer = model(100, 2);
    const plan = planEviction([newer, older, model(100, 3)], 300, 50);
    expect(plan).to.deep.equal({ victims: [older], used: 200, fits: true });
  });

  it('never picks a model that is loading or answering, and says when it cannot fit', () => {
    const plan = planEviction([model(200, 1, 'loading'), model(100, 2, 'loaded', 1), model(50, 3)], 200);
    expect(plan.victims.map((victim) => victim.bytes)).to.deep.equal([50]);
    expect(plan).to.include({ used: 300, fits: false });
  });
});
