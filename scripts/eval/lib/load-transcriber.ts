import type { ManifestEntry } from '../../../src/inference/manifest.js';
import type { Transcriber } from '../../../src/inference/types.js';
import { loadModel } from './load-model.js';

export { modelsDir } from './load-model.js';

export interface LoadTranscriberOptions {
  modelId: string;
  /** Overrides of the manifest `options` (e.g. dtype, threads) for this run only. */
  options?: Record<string, unknown>;
}

export async function loadTranscriber({
  modelId,
  options = {},
}: LoadTranscriberOptions): Promise<{ entry: ManifestEntry; modelDir: string; transcriber: Transcriber }> {
  const { entry, modelDir, model } = await loadModel('speech-to-text', modelId, options);
  return { entry, modelDir, transcriber: model };
}
