/**
 * The single place that configures transformers.js's global `env`: local files only, from
 * MODELS_DIR, never the hub. Each worker thread that loads transformers.js has its own copy of the
 * module and calls this first; the HTTP main thread never imports transformers.js at all.
 */
import { env } from '@huggingface/transformers';

export function configureRuntime(options: { modelsDir: string }): void {
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = options.modelsDir.endsWith('/') ? options.modelsDir : `${options.modelsDir}/`;
}
