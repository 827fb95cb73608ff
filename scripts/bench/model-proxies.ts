/**
 * What the two method-name Proxies a model call passes through cost (issue 41): the registry's
 * handle (lifecycle/model-handle.ts: calls in flight, reload after an unload) and the request's
 * metering (src/http/scoped-models.ts: usage and metrics). A classifier engine that answers at
 * once stands in for the model, so only the wrappers are priced: a call on the model itself,
 * through the handle, through both, and a request's whole `models.get` + call. Rounds
 * interleave; each variant keeps its best round (a shared machine only slows a round down).
 *
 *   npx tsx scripts/bench/model-proxies.ts
 *
 * Env: BENCH_ROUNDS (7), BENCH_CALLS per variant and round (100000). Seconds.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KeyAccess } from '../../src/auth/key-access.js';
import { scopedModels } from '../../src/http/scoped-models.js';
import { type Engine, INSTALL_MARKER } from '../../src/inference/engine.js';
import { ModelRegistry } from '../../src/inference/model-registry.js';
import type { Classifier } from '../../src/inference/types.js';
import { loadAverage } from '../eval/lib/load-average.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const CALLS = Number(process.env.BENCH_CALLS ?? 100_000);
const ID = 'instant';

const instant: Classifier = { classify: async (text) => [{ label: text, confidence: 1 }], dispose: async () => {} };
const engine: Engine<'text-classification'> = { tasks: ['text-classification'], load: async () => instant };
/** A key that may use every model; usage counted nowhere. */
const access = { checkModel: () => {}, count: () => {}, current: () => undefined } as unknown as KeyAccess;

const modelsDir = mkdtempSync(join(tmpdir(), 'model-proxies-'));
mkdirSync(join(modelsDir, ID));
writeFileSync(join(modelsDir, ID, INSTALL_MARKER), '{}');
const registry = new ModelRegistry({
  manifest: { models: [{ id: ID, task: 'text-classification', engine: 'instant', description: '', license: 'mit' }] },
  modelsDir,
  engines: { instant: engine },
});
const models = scopedModels(registry, access, { call: () => {} });
try {
  const handle = await registry.get(ID, 'text-classification');
  const metered = await models.get(ID, 'text-classification');
  const variants: Record<string, () => Promise<unknown>> = {
    'the model itself': () => instant.classify('x'),
    'registry handle (1 Proxy)': () => handle.classify('x'),
    'handle + metering (2 Proxies)': () => metered.classify('x'),
    "a request's models.get + call": async () => (await models.get(ID, 'text-classification')).classify('x'),
  };
  const best = new Map<string, number>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, call] of Object.entries(variants)) {
      const started = process.hrtime.bigint();
      for (let i = 0; i < CALLS; i++) await call();
      const ns = Number(process.hrtime.bigint() - started) / CALLS;
      best.set(name, Math.min(best.get(name) ?? Number.POSITIVE_INFINITY, ns));
    }
  }
  console.log(`${CALLS} calls × ${ROUNDS} rounds, best round per variant, load average ${loadAverage()}`);
  for (const [name, ns] of best) console.log(`${name.padEnd(34)} ${(ns / 1000).toFixed(3).padStart(8)} µs per call`);
} finally {
  await registry.close();
  rmSync(modelsDir, { recursive: true, force: true });
}
