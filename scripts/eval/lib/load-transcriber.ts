/**
 * Loads a speech-to-text model exactly as the server does (manifest entry → ENGINES table →
 * engine.load), so evaluations and benchmarks measure the product's code path: its worker
 * thread, its audio decoder and its transformers.js settings.
 */
import { join, resolve } from 'node:path';
import { hasInstallMarker } from '../../../src/inference/engine.js';
import { ENGINES } from '../../../src/inference/engines.js';
import { readManifest, type ManifestEntry } from '../../../src/inference/manifest.js';
import type { Transcriber } from '../../../src/inference/types.js';

export interface LoadTranscriberOptions {
  modelId: string;
  /** Overrides of the manifest `options` (e.g. dtype, threads) for this run only. */
  options?: Record<string, unknown>;
}

export interface LoadedTranscriber {
  entry: ManifestEntry;
  modelDir: string;
  transcriber: Transcriber;
}

export function modelsDir(): string {
  return resolve(process.env.MODELS_DIR ?? 'models');
}

export async function loadTranscriber({ modelId, options = {} }: LoadTranscriberOptions): Promise<LoadedTranscriber> {
  const manifest = await readManifest(process.env.MODELS_MANIFEST ?? 'models/models.json');
  const found = manifest.models.find((model) => model.id === modelId);
  if (!found || found.task !== 'speech-to-text') throw new Error(`no speech-to-text model "${modelId}" in the manifest`);
  const entry: ManifestEntry = { ...found, options: { ...found.options, ...options } };
  const engine = ENGINES[entry.engine];
  if (!engine) throw new Error(`model "${modelId}" names unknown engine "${entry.engine}"`);
  const dir = modelsDir();
  const modelDir = join(dir, entry.id);
  if (!(await hasInstallMarker(modelDir))) {
    throw new Error(`model "${modelId}" is not installed in ${dir}; run: ${entry.installCommand ?? 'npm run download-models'}`);
  }
  const transcriber = (await engine.load(entry, { modelDir, modelsDir: dir })) as Transcriber;
  return { entry, modelDir, transcriber };
}
