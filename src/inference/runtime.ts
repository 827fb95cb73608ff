/**
 * The single place that configures transformers.js's global `env`: local files only, from
 * MODELS_DIR, never the hub. Called once at start-up (and by tests).
 */
import { env } from '@huggingface/transformers';

export function configureRuntime(options: { modelsDir: string }): void {
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = options.modelsDir.endsWith('/') ? options.modelsDir : `${options.modelsDir}/`;
}
