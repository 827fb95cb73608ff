/** Models of the committed manifest whose real weights `npm run test-models` installs into models/. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Manifest, ManifestEntry } from '../../src/inference/manifest.js';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';

export const REAL_MODELS_DIR = join(REPO_ROOT, 'models');

/** A model of models/models.json, and whether `npm run test-models` installed it. */
export function realModel(id: string): { entry: ManifestEntry | undefined; installed: boolean } {
  const manifestPath = join(REAL_MODELS_DIR, 'models.json');
  const entry = existsSync(manifestPath)
    ? (JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest).models.find((model: ManifestEntry) => model.id === id)
    : undefined;
  return { entry, installed: entry !== undefined && existsSync(join(REAL_MODELS_DIR, id, '.installed.json')) };
}
