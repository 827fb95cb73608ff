/** Models of the committed manifest whose real weights `npm run test-models` installs into models/. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENGINES } from '../../src/inference/engines.js';
import type { Manifest, ManifestEntry } from '../../src/inference/manifest.js';
import type { EngineModelForTask, Task } from '../../src/inference/types.js';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';
import { sharedEngines } from './shared-engines.js';

export const REAL_MODELS_DIR = join(REPO_ROOT, 'models');

/** A model of models/models.json, and whether `npm run test-models` installed it. */
export function realModel(id: string): { entry: ManifestEntry | undefined; installed: boolean } {
  const manifestPath = join(REAL_MODELS_DIR, 'models.json');
  const entry = existsSync(manifestPath)
    ? (JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest).models.find((model: ManifestEntry) => model.id === id)
    : undefined;
  return { entry, installed: entry !== undefined && existsSync(join(REAL_MODELS_DIR, id, '.installed.json')) };
}

/**
 * The installed model `id` of models/models.json as its engine loads it, for tests that drive a
 * model without the HTTP layer. The load is shared with every other test of the mocha process
 * that loads the same entry, through an app or here (shared-engines.ts); its `dispose` leaves it
 * loaded. Callers check `realModel(id).installed` first.
 */
export async function loadRealModel<T extends Task>(id: string, task: T): Promise<EngineModelForTask[T]> {
  const { entry } = realModel(id);
  if (entry?.task !== task) throw new Error(`models/models.json has no ${task} model "${id}"`);
  const engine = sharedEngines(ENGINES)[entry.engine];
  if (!engine) throw new Error(`no engine "${entry.engine}" for "${id}"`);
  return (await engine.load(entry, { modelDir: join(REAL_MODELS_DIR, id), modelsDir: REAL_MODELS_DIR })) as EngineModelForTask[T];
}
