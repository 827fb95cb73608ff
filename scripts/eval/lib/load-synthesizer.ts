import type { ManifestEntry } from '../../../src/inference/manifest.js';
import type { Synthesizer } from '../../../src/inference/types.js';
import { loadModel } from './load-model.js';

export async function loadSynthesizer(
  modelId: string,
  options: Record<string, unknown> = {},
): Promise<{ entry: ManifestEntry; modelDir: string; synthesizer: Synthesizer }> {
  const { entry, modelDir, model } = await loadModel('text-to-speech', modelId, options);
  return { entry, modelDir, synthesizer: model };
}
