/**
 * Loads one model exactly as the server does (manifest → ModelRegistry → ENGINES → engine
 * worker), with per-run overrides of its manifest `options` (e.g. dtype, threads), so
 * evaluations and benchmarks measure the product's code path.
 */
import { join, resolve } from 'node:path';
import { loadConfig } from '../../../src/config/load-config.js';
import { ENGINES } from '../../../src/inference/engines.js';
import { readManifest, type ManifestEntry } from '../../../src/inference/manifest.js';
import { ModelRegistry } from '../../../src/inference/model-registry.js';
import type { ModelForTask, Task } from '../../../src/inference/types.js';

export interface LoadedModel<T extends Task> {
  entry: ManifestEntry;
  modelDir: string;
  model: ModelForTask[T];
}

export function modelsDir(): string {
  return resolve(loadConfig(process.env).modelsDir);
}

export async function loadModel<T extends Task>(task: T, modelId: string, overrides: Record<string, unknown> = {}): Promise<LoadedModel<T>> {
  const config = loadConfig(process.env);
  const manifest = await readManifest(config.manifestPath);
  const found = manifest.models.find((model) => model.id === modelId);
  if (!found) throw new Error(`no model "${modelId}" in ${config.manifestPath}`);
  const entry: ManifestEntry = { ...found, options: { ...found.options, ...overrides } };
  // The registry sees the base models too, so an entry sharing one (options.baseModel) resolves.
  const models = manifest.models.map((model) => (model.id === modelId ? entry : model));
  const registry = new ModelRegistry({ manifest: { models }, modelsDir: modelsDir(), engines: ENGINES });
  const handle = await registry.get(modelId, task);
  // A registry handle's dispose does nothing (the registry owns its models); here the caller owns
  // this registry, and its model's worker must end for the process to exit.
  const model = new Proxy(handle, {
    get: (target, property) => (property === 'dispose' ? () => registry.close() : Reflect.get(target, property)),
  });
  return { entry, modelDir: join(modelsDir(), entry.id), model };
}
