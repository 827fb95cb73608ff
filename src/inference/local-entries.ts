/**
 * User-installed models (`npm run download-models -- hf:<owner>/<repo>`): the installer writes
 * each one's manifest entry into its own folder, `<MODELS_DIR>/<id>/.manifest-entry.json`, in
 * the same atomic rename as its files, so an entry exists exactly when its model is installed
 * and removing the folder removes the model. The shipped manifest stays read-only data. An entry
 * that cannot be used leaves out its own model only (`onSkipped` hears of it), never the server.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseManifest, readManifest, type Manifest, type ManifestEntry } from './manifest.js';

export const LOCAL_ENTRY_FILE = '.manifest-entry.json';

/** A user-installed entry left out, and why (the server logs one line for each, `download-models --list` prints one). */
export interface SkippedEntry {
  file: string;
  reason: string;
}

export interface LoadManifestOptions {
  /**
   * Called for each user-installed entry that cannot be used (unreadable, not JSON, an id other
   * than its folder's, a shipped model's id, a field the manifest refuses, or one `check`
   * refuses): that model is left out and every other one still serves.
   */
  onSkipped?: (skipped: SkippedEntry) => void;
  /** A further check of each entry (the server's: its engine and options, as the catalogue checks them). */
  check?: (entry: ManifestEntry) => void;
}

/** The shipped manifest plus every usable user-installed entry under `modelsDir` (their ids in `localIds`). */
export async function loadManifest(manifestPath: string, modelsDir: string, options: LoadManifestOptions = {}): Promise<Manifest> {
  const shipped = await readManifest(manifestPath);
  const skip = options.onSkipped ?? (() => {});
  const shippedIds = new Set(shipped.models.map((entry) => entry.id));
  const local: ManifestEntry[] = [];
  for (const { file, entry } of await readLocalEntries(modelsDir, skip)) {
    if (shippedIds.has(entry.id)) {
      skip({ file, reason: `id "${entry.id}" is also in ${manifestPath}; remove or rename that folder` });
      continue;
    }
    try {
      // Alone beside the shipped models: one bad entry must not take the others with it.
      parseManifest({ models: [...shipped.models, entry] }, file);
      options.check?.(entry);
    } catch (error) {
      skip({ file, reason: (error as Error).message.replace(`${file}: `, '') });
      continue;
    }
    local.push(entry);
  }
  if (local.length === 0) return shipped;
  const merged = parseManifest({ ...shipped, models: [...shipped.models, ...local] }, `${manifestPath} + ${modelsDir}/*/${LOCAL_ENTRY_FILE}`);
  return { ...merged, localIds: local.map((entry) => entry.id) };
}

async function readLocalEntries(modelsDir: string, skip: (skipped: SkippedEntry) => void): Promise<Array<{ file: string; entry: ManifestEntry }>> {
  let names: string[];
  try {
    names = (await readdir(modelsDir, { withFileTypes: true }))
      .filter((dirent) => dirent.isDirectory() && !dirent.name.startsWith('.'))
      .map((dirent) => dirent.name);
  } catch {
    return [];
  }
  const entries: Array<{ file: string; entry: ManifestEntry }> = [];
  for (const name of names.sort()) {
    const file = join(modelsDir, name, LOCAL_ENTRY_FILE);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') skip({ file, reason: `cannot be read (${code ?? (error as Error).message})` });
      continue;
    }
    let entry: ManifestEntry;
    try {
      entry = JSON.parse(text) as ManifestEntry;
    } catch (error) {
      skip({ file, reason: `is not valid JSON (${(error as Error).message}); reinstall that model` });
      continue;
    }
    // The folder is the model's identity: an entry copied into another folder would serve the wrong files.
    if (entry?.id !== name) {
      skip({ file, reason: `id must be the folder name "${name}"` });
      continue;
    }
    entries.push({ file, entry });
  }
  return entries;
}
