/**
 * Installs one model atomically: files are fetched into `<MODELS_DIR>/.partial/<id>/`, each is
 * checked (size, sha256) as it arrives, the install marker is written last, and only then is
 * the folder renamed to `<MODELS_DIR>/<id>`. A failure at any point leaves the old install (or
 * no folder) in place, plus a staging folder the next run resumes from.
 */
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { INSTALL_MARKER } from '../engine.js';
import { targetPath, type ManifestEntry, type SourceFile } from '../manifest.js';
import { checkFreeSpace, fileSize, freeBytes, verifyFile, type VerifiedFile } from './file-checks.js';
import { IntegrityError, InstallError } from './install-errors.js';
import { withInstallLock } from './install-lock.js';

export const STAGING_DIR = '.partial';
/** Says which repo and revision a staging folder holds, so files of another revision are not reused. */
const STAGING_SOURCE = '.staging-source.json';

/** The content of `<MODELS_DIR>/<id>/.installed.json`. */
interface InstallRecord {
  id: string;
  source: {
    type: 'huggingface';
    repo: string;
    revision: string;
    /** The commit the hub served (X-Repo-Commit), which pins a tag revision after the fact. */
    commit?: string;
    imported_from?: string;
  };
  files: Array<{ path: string; sha256: string; size: number }>;
  installed_at: string;
}

/** Puts the bytes of `file` at `dest` (a `.part` path inside the staging folder). */
export type FetchFile = (file: SourceFile, dest: string, label: string) => Promise<{ repoCommit?: string } | undefined>;

interface InstallOptions {
  modelsDir: string;
  fetchFile: FetchFile;
  /** Recorded in the marker when files came from `--from`. */
  importedFrom?: string;
  /** Keep files a previous run already verified (hub resume); an import starts clean. */
  reuseStaged: boolean;
  log: (line: string) => void;
  now?: () => Date;
  /** Tests simulate a full disk. */
  freeBytes?: (dir: string) => Promise<number>;
  /** Files written beside the verified ones, in the same rename (a user-installed entry's manifest entry). */
  extraFiles?: (files: InstallRecord['files']) => Record<string, string>;
}

function stagingDirFor(modelsDir: string, id: string): string {
  return join(modelsDir, STAGING_DIR, id);
}

export async function installModel(entry: ManifestEntry, options: InstallOptions): Promise<InstallRecord> {
  const staging = stagingDirFor(options.modelsDir, entry.id);
  return withInstallLock(`${staging}.lock`, entry.id, () => install(entry, staging, options));
}

async function install(entry: ManifestEntry, staging: string, options: InstallOptions): Promise<InstallRecord> {
  const source = entry.source;
  if (!source) throw new InstallError(`${entry.id} has no download source`);
  const identity = JSON.stringify({ repo: source.repo, revision: source.revision });
  const stagedIdentity = await readFile(join(staging, STAGING_SOURCE), 'utf8').catch(() => undefined);
  if (!options.reuseStaged || stagedIdentity !== identity) await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  await writeFile(join(staging, STAGING_SOURCE), identity);
  const missingBytes = await bytesStillNeeded(staging, source.files);
  await checkFreeSpace(options.modelsDir, missingBytes, entry.id, options.freeBytes ?? freeBytes);

  const files: InstallRecord['files'] = [];
  const commits = new Set<string>();
  for (const file of source.files) {
    const target = targetPath(file);
    const { repoCommit, ...verified } = await stageFile(staging, file, `${entry.id}/${target}`, options);
    if (repoCommit) commits.add(repoCommit);
    files.push({ path: target, ...verified });
  }
  if (commits.size > 1) options.log(`${entry.id}: the hub served several commits (${[...commits].join(', ')}); recording the first`);
  const [commit] = commits;
  await pruneStaging(staging, new Set(files.map((file) => file.path)));
  for (const [name, text] of Object.entries(options.extraFiles?.(files) ?? {})) await writeFile(join(staging, name), text);

  const record: InstallRecord = {
    id: entry.id,
    source: {
      type: 'huggingface',
      repo: source.repo,
      revision: source.revision,
      ...(commit ? { commit } : {}),
      ...(options.importedFrom ? { imported_from: options.importedFrom } : {}),
    },
    files,
    installed_at: (options.now?.() ?? new Date()).toISOString(),
  };
  await writeFile(join(staging, INSTALL_MARKER), `${JSON.stringify(record, null, 2)}\n`);
  await swapInto(staging, join(options.modelsDir, entry.id), join(options.modelsDir, STAGING_DIR));
  return record;
}

/** The marker of an existing install, or undefined when absent or unreadable. */
export async function readInstallRecord(modelDir: string): Promise<InstallRecord | undefined> {
  try {
    return JSON.parse(await readFile(join(modelDir, INSTALL_MARKER), 'utf8')) as InstallRecord;
  } catch {
    return undefined;
  }
}

/** True when the installed files are exactly the ones this manifest entry pins. */
export function isCurrentInstall(entry: ManifestEntry, record: InstallRecord | undefined): boolean {
  const source = entry.source;
  if (!source || !record || record.source?.repo !== source.repo || record.source.revision !== source.revision) {
    return false;
  }
  const installed = new Map(record.files.map((file) => [file.path, file]));
  return (
    installed.size === source.files.length &&
    source.files.every((file) => {
      const found = installed.get(targetPath(file));
      return found !== undefined && (file.sha256 === undefined || found.sha256 === file.sha256);
    })
  );
}

async function stageFile(staging: string, file: SourceFile, label: string, options: InstallOptions): Promise<VerifiedFile & { repoCommit?: string }> {
  const final = join(staging, targetPath(file));
  if (options.reuseStaged && (await exists(final))) {
    try {
      const verified = await verifyFile(final, file, label);
      options.log(`${label}: already downloaded`);
      return verified;
    } catch (error) {
      if (!(error instanceof IntegrityError)) throw error;
      // A stale staged file (older manifest) was deleted by verifyFile; fetch it again.
    }
  }
  const part = `${final}.part`;
  await mkdir(dirname(final), { recursive: true });
  const fetched = await options.fetchFile(file, part, label);
  const verified = await verifyFile(part, file, label);
  await rename(part, final);
  if (file.sha256 === undefined) options.log(`${label}: no sha256 pinned in the manifest, recorded ${verified.sha256}`);
  return fetched?.repoCommit ? { ...verified, repoCommit: fetched.repoCommit } : verified;
}

/** Removes files the manifest no longer lists (and stray `.part` files) from the staging folder. */
async function pruneStaging(staging: string, keep: ReadonlySet<string>): Promise<void> {
  const entries = await readdir(staging, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if (!keep.has(relative(staging, path).split('\\').join('/'))) await rm(path, { force: true });
  }
}

/**
 * rename(2) cannot replace a non-empty folder, so an older install is first moved aside and
 * restored if the second rename fails; it is deleted only once the new one is in place.
 */
async function swapInto(staging: string, finalDir: string, scratch: string): Promise<void> {
  const aside = join(scratch, `${relative(dirname(finalDir), finalDir)}.replaced-${process.pid}-${Date.now()}`);
  let movedAside = false;
  try {
    await rename(finalDir, aside);
    movedAside = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  try {
    await rename(staging, finalDir);
  } catch (error) {
    if (movedAside) await rename(aside, finalDir);
    throw error;
  }
  if (movedAside) await rm(aside, { recursive: true, force: true });
}

/** Sized files not staged yet, minus what their `.part` files already hold. */
async function bytesStillNeeded(staging: string, files: readonly SourceFile[]): Promise<number> {
  let total = 0;
  for (const file of files) {
    if (file.size === undefined) continue;
    const final = join(staging, targetPath(file));
    if (await exists(final)) continue;
    const partial = await fileSize(`${final}.part`);
    total += Math.max(0, file.size - partial);
  }
  return total;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
