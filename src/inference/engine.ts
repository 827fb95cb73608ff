import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type { ManifestEntry } from './manifest.js';
import type { ModelForTask, Task } from './types.js';

/** Written by download-models (and test-models) as the last step of an atomic install. */
export const INSTALL_MARKER = '.installed.json';

export interface EngineContext {
  /** The folder this model is installed in: `<MODELS_DIR>/<id>`. */
  modelDir: string;
  modelsDir: string;
}

/**
 * How one engine turns a manifest entry into a loaded model. Engines are data in the
 * `ENGINES` table (src/inference/engines.ts); the registry never switches on engine names.
 */
export interface Engine<T extends Task = Task> {
  readonly tasks: readonly T[];
  /** Defaults to "the install marker exists in the model folder". */
  isInstalled?(entry: ManifestEntry, context: EngineContext): Promise<boolean>;
  /** Command that installs the model, shown in 503 answers. */
  installCommand?(entry: ManifestEntry): string;
  load(entry: ManifestEntry, context: EngineContext): Promise<ModelForTask[T]>;
  /** Extra facts for GET /v1/models (e.g. labels, languages), computed without loading. */
  describe?(entry: ManifestEntry): Record<string, unknown>;
}

export async function hasInstallMarker(modelDir: string): Promise<boolean> {
  try {
    await access(join(modelDir, INSTALL_MARKER));
    return true;
  } catch {
    return false;
  }
}
