/**
 * User-installed models (`npm run download-models -- hf:<owner>/<repo>`): the installer writes
 * each one's manifest entry into its own folder, `<MODELS_DIR>/<id>/.manifest-entry.json`, in
 * the same atomic rename as its files, so an entry exists exactly when its model is installed
 * and removing the folder removes the model. The shipped manifest stays read-only data.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ManifestError, parseManifest, readManifest, type Manifest, type ManifestEntry } from './manifest.js';

export const LOCAL_ENTRY_FILE = '.manifest-entry.json';

/** The shipped manifest plus every user-installed entry under `modelsDir` (their ids in `localIds`). */
export async function loadManifest(manifestPath: string, modelsDir: string): Promise<Manifest> {
  const shipped = await readManifest(manifestPath);
  const local = await readLocalEntries(modelsDir);
  if (local.length === 0) return shipped;
  const shippedIds = new Set(shipped.models.map((entry) => entry.id));
  for (const entry of local) {
    if (shippedIds.has(entry.id)) {
      throw new ManifestError(`${join(modelsDir, entry.id, LOCAL_ENTRY_FILE)}: id "${entry.id}" is also in ${manifestPath}; remove or rename that folder`);
    }
  }
  const merged = parseManifest({ ...shipped, models: [...shipped.models, ...local] }, `${manifestPath} + ${modelsDir}/*/${LOCAL_ENTRY_FILE}`);
  return { ...merged, localIds: local.map((entry) => entry.id) };
}

async function readLocalEntries(modelsDir: string): Promise<ManifestEntry[]> {
  let names: string[];
  try {
    names = (await readdir(modelsDir, { withFileTypes: true }))
      .filter((dirent) => dirent.isDirectory() && !dirent.name.startsWith('.'))
      .map((dirent) => dirent.name);
  } catch {
    return [];
  }
  const entries: ManifestEntry[] = [];
  for (const name of names.sort()) {
    const path = join(modelsDir, name, LOCAL_ENTRY_FILE);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch {
      continue;
    }
    let entry: ManifestEntry;
    try {
      entry = JSON.parse(text) as ManifestEntry;
    } catch (error) {
      throw new ManifestError(`${path}: ${(error as Error).message}`);
    }
    // The folder is the model's identity: an entry copied into another folder would serve the wrong files.
    if (entry?.id !== name) throw new ManifestError(`${path}: id must be the folder name "${name}"`);
    entries.push(entry);
  }
  return entries;
}
