import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INSTALL_MARKER, type Engine } from '../../../src/inference/engine.js';
import { ModelRegistry } from '../../../src/inference/model-registry.js';

/** A process whose RSS the test sets: loading adds 100 bytes, a model's first call 50, later calls nothing. */
function fakeProcess() {
  const state = { rss: 1_000, calls: 0 };
  const engine: Engine<'text-classification'> = {
    tasks: ['text-classification'],
    load: async () => {
      state.rss += 100;
      return {
        classify: async () => {
          if (state.calls++ === 0) state.rss += 50;
          return [];
        },
        dispose: async () => {
          state.rss -= 150;
        },
      };
    },
  };
  return { state, engine };
}

describe('model memory as the registry measures it', () => {
  let modelsDir: string;
  before(() => {
    modelsDir = mkdtempSync(join(tmpdir(), 'lis-memory-'));
    mkdirSync(join(modelsDir, 'm'));
    writeFileSync(join(modelsDir, 'm', INSTALL_MARKER), '{}');
    writeFileSync(join(modelsDir, 'm', 'weights.bin'), Buffer.alloc(30));
  });
  after(() => rmSync(modelsDir, { recursive: true, force: true }));

  it('counts the files before the first load, then the load, then the first call, and keeps it for the next load', async () => {
    const { state, engine } = fakeProcess();
    const registry = new ModelRegistry({
      manifest: { models: [{ id: 'm', task: 'text-classification', engine: 'fake', description: '', license: '' }] },
      modelsDir,
      engines: { fake: engine },
      rss: () => state.rss,
    });
    const memory = async () => (await registry.list())[0]!.memory_bytes;
    expect(await memory()).to.equal(null);
    const model = await registry.get('m', 'text-classification');
    expect(await memory()).to.equal(100);
    await model.classify('first');
    expect(await memory()).to.equal(150);
    await model.classify('second');
    expect(await memory()).to.equal(150);
    await registry.unload('m');
    // Unloaded, it shows what it took (what its next load counts against the budget).
    expect(await memory()).to.equal(150);
    expect(registry.residents()).to.deep.equal([]);
    await registry.close();
  });

  it('estimates a model never loaded by the size of its files', async () => {
    const { state, engine } = fakeProcess();
    const registry = new ModelRegistry({
      manifest: { models: [{ id: 'm', task: 'text-classification', engine: 'fake', description: '', license: '' }] },
      modelsDir,
      engines: { fake: engine },
      rss: () => state.rss,
      maxMemoryBytes: 20,
    });
    // The files (30 bytes of weights and the install marker) do not fit a 20-byte budget.
    const refused = await registry.get('m', 'text-classification').then(
      () => undefined,
      (error: { code?: string }) => error.code,
    );
    expect(refused).to.equal('model_memory_exhausted');
    await registry.close();
  });
});
