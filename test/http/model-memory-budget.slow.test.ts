/**
 * Real models (npm run test-models): MODELS_MAX_MEMORY holds once the models are measured, not only
 * against the size of their files when they load. Each run is a fresh child process
 * (test/helpers/three-models-run.ts, real HTTP to createApp): a process that has loaded and freed
 * models before keeps that memory and reuses it, so what a load measures there shrinks by an
 * amount no budget set beforehand can follow. The first run measures, the second has the budget.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ENGINES } from '../../src/inference/engines.js';
import type { Manifest } from '../../src/inference/manifest.js';
import { ModelRegistry } from '../../src/inference/model-registry.js';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';
import { REAL_MODELS_DIR } from '../helpers/real-models.js';
import { THREE_MODELS, type ThreeModelsRun } from '../helpers/three-models-run.js';

async function run(maxMemoryBytes?: number): Promise<ThreeModelsRun> {
  const args = ['--import', 'tsx', join(REPO_ROOT, 'test/helpers/three-models-run.ts'), ...(maxMemoryBytes === undefined ? [] : [String(maxMemoryBytes)])];
  const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: REPO_ROOT, maxBuffer: 2 ** 24 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as ThreeModelsRun;
}

describe('MODELS_MAX_MEMORY after warm-up (real whisper-tiny.en, MiniLM and Piper over HTTP)', function () {
  this.timeout(240_000);

  before(async function () {
    const manifest = JSON.parse(readFileSync(join(REAL_MODELS_DIR, 'models.json'), 'utf8')) as Manifest;
    const registry = new ModelRegistry({ manifest, modelsDir: REAL_MODELS_DIR, engines: ENGINES });
    const installed = (await registry.list()).filter((model) => model.installed).map((model) => model.id);
    await registry.close();
    if (THREE_MODELS.some((id) => !installed.includes(id))) this.skip(); // `npm run test-models` installs them
  });

  it('with room for the first two, the third one’s measured memory unloads the least recently used, for memory', async () => {
    // No budget: what each model takes (its load and first call) in a fresh process.
    const measuring = await run();
    const measured = Object.fromEntries(measuring.residents.at(-1)!.map((resident) => [resident.id, resident.bytes]));
    expect(measuring.unloads).to.deep.equal([]);
    // Room for the first two, not for all three. The files' sizes that loads are admitted on fit it
    // all three together, so only the measured figures can tell.
    const budget = measured[THREE_MODELS[0]]! + measured[THREE_MODELS[1]]!;

    const { residents, unloads, models } = await run(budget);
    const figures = JSON.stringify({ measured, budget, residents });
    for (const after of residents)
      expect(
        after.reduce((sum, resident) => sum + resident.bytes, 0),
        figures,
      ).to.be.at.most(budget);
    expect(unloads.length, figures).to.be.at.least(1);
    // It leaves counted at what it took after its own request.
    const first = residents[0]!.find((resident) => resident.id === THREE_MODELS[0])!;
    // The least recently used is among the unloads; when the third needs two models' room, both
    // unload at once and report in the order their workers end, so the events' order says nothing.
    const lru = unloads.find((event) => event.modelId === THREE_MODELS[0]);
    expect(lru, figures).to.deep.equal({ modelId: THREE_MODELS[0], task: 'speech-to-text', reason: 'memory', memoryBytes: first.bytes });
    if (unloads.length === 1)
      expect(
        residents.at(-1)!.map((resident) => resident.id),
        figures,
      ).to.include(THREE_MODELS[1]);
    expect(unloads.map((event) => event.reason)).to.deep.equal(unloads.map(() => 'memory'));

    // GET /v1/models says the same: the loaded models' memory within the budget, the evicted unloaded.
    const loaded = models.filter((model) => model.state !== 'unloaded');
    expect(loaded.reduce((sum, model) => sum + model.memory_bytes!, 0)).to.be.at.most(budget);
    expect(loaded.map((model) => model.id)).to.include(THREE_MODELS[2]);
    expect(models.find((model) => model.id === THREE_MODELS[0])).to.include({ state: 'unloaded' });
  });
});
