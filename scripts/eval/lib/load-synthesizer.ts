/**
 * Loads a text-to-speech model exactly as the server does (manifest entry → ENGINES table →
 * engine.load → synthesis worker), so evaluations and benchmarks measure the product's path.
 */
import { join } from 'node:path';
import { hasInstallMarker } from '../../../src/inference/engine.js';
import { ENGINES } from '../../../src/inference/engines.js';
import { readManifest, type ManifestEntry } from '../../../src/inference/manifest.js';
import type { Synthesizer } from '../../../src/inference/types.js';
import { modelsDir } from './load-transcriber.js';

export interface LoadedSynthesizer {
  entry: ManifestEntry;
  modelDir: string;
  synthesizer: Synthesizer;
}

export async function loadSynthesizer(modelId: string, options: Record<string, unknown> = {}): Promise<LoadedSynthesizer> {
  const manifest = await readManifest(process.env.MODELS_MANIFEST ?? 'models/models.json');
  const found = manifest.models.find((model) => model.id === modelId);
  if (!found || found.task !== 'text-to-speech') throw new Error(`no text-to-speech model "${modelId}" in the manifest`);
  const entry: ManifestEntry = { ...found, options: { ...found.options, ...options } };
  const engine = ENGINES[entry.engine];
  if (!engine) throw new Error(`model "${modelId}" names unknown engine "${entry.engine}"`);
  const dir = modelsDir();
  const modelDir = join(dir, entry.id);
  if (!(await hasInstallMarker(modelDir))) {
    throw new Error(`model "${modelId}" is not installed in ${dir}; run: ${entry.installCommand ?? 'npm run test-models'}`);
  }
  const synthesizer = (await engine.load(entry, { modelDir, modelsDir: dir })) as Synthesizer;
  return { entry, modelDir, synthesizer };
}
