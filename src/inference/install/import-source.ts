/**
 * `--from <dir|tarball>`: model files copied by hand (another machine's MODELS_DIR, a git
 * clone of the hub repository, a USB stick). Accepted layouts, for a folder or a .tar/.tar.gz:
 * `<from>/<id>/<files>` for any number of models, or `<from>/<files>` for a single one. Each
 * file may sit at its installed name (`target`) or at its path in the hub repository.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { promisify } from 'node:util';
import { installFolder, targetPath, type ManifestEntry } from '../manifest.js';
import { externalDataPath, onnxExternalData } from '../model-files-check.js';
import type { CheckedFile } from './hub-api.js';
import { checkFreeSpace, freeBytes } from './file-checks.js';
import { InstallError } from './install-errors.js';
import type { FetchFile } from './install-model.js';

const run = promisify(execFile);

export interface ImportSource {
  /** The folder to look in (the tarball's extraction folder for archives). */
  root: string;
  /** What the user passed, for messages and the install marker. */
  origin: string;
  close(): Promise<void>;
}

export async function openImportSource(from: string, scratchDir: string, free: (dir: string) => Promise<number> = freeBytes): Promise<ImportSource> {
  const origin = resolve(from);
  const info = await stat(origin).catch(() => undefined);
  if (!info) throw new InstallError(`--from ${from}: no such file or folder`);
  if (info.isDirectory()) return { root: origin, origin, close: async () => {} };
  if (!/\.(tar|tar\.gz|tgz)$/i.test(origin)) {
    throw new InstallError(`--from ${from}: expected a folder or a .tar / .tar.gz / .tgz archive`);
  }
  await mkdir(scratchDir, { recursive: true });
  await checkArchive(origin, from, scratchDir, free);
  const extracted = await mkdtemp(join(scratchDir, '.import-'));
  const close = () => rm(extracted, { recursive: true, force: true });
  try {
    // GNU tar detects gzip itself and strips leading "/" and ".." from member names.
    await run('tar', ['-xf', origin, '-C', extracted, '--no-same-owner'], { maxBuffer: 1024 * 1024 });
  } catch (error) {
    await close();
    throw new InstallError(`--from ${from}: cannot extract the archive: ${(error as Error).message.trim()}`);
  }
  return { root: await descendSingleFolder(extracted), origin, close };
}

/**
 * Lists the archive before extracting it: only files and folders (a link could point the copy at
 * any file of this machine), and no more bytes than the disk has free (a small .tgz can inflate
 * to fill it).
 */
async function checkArchive(archive: string, from: string, scratchDir: string, free: (dir: string) => Promise<number>): Promise<void> {
  let listing: string;
  try {
    // Numeric owners keep the columns fixed; C locale keeps the date one word.
    ({ stdout: listing } = await run('tar', ['-tvf', archive, '--numeric-owner'], { maxBuffer: 64 * 1024 * 1024, env: { ...process.env, LC_ALL: 'C' } }));
  } catch (error) {
    throw new InstallError(`--from ${from}: cannot read the archive: ${(error as Error).message.trim()}`);
  }
  let total = 0;
  for (const line of listing.split('\n').filter((row) => row !== '')) {
    const type = line[0];
    if (type !== '-' && type !== 'd') {
      throw new InstallError(
        `--from ${from}: the archive holds ${type === 'l' || type === 'h' ? 'a link' : 'a special file'} (${line.split(/\s+/).slice(5).join(' ')}); only files and folders are imported`,
      );
    }
    total += Number(line.split(/\s+/)[2]) || 0;
  }
  await checkFreeSpace(scratchDir, total, `the contents of ${from}`, free);
}

/** Ids from the manifest that have a `<root>/<id>/` (or shared `<root>/<folder>/`) folder, for `--from` without ids. */
export async function idsPresentIn(root: string, entries: readonly ManifestEntry[]): Promise<string[]> {
  const present: string[] = [];
  for (const entry of entries) {
    if ((entry.source || entry.hubRepo) && ((await isDirectory(join(root, entry.id))) || (await isDirectory(join(root, installFolder(entry)))))) {
      present.push(entry.id);
    }
  }
  return present;
}

/** The folder holding this model's files: `<root>/<id>`, `<root>/<shared folder>`, or `<root>` itself for a single model. */
export async function modelRootIn(root: string, entry: ManifestEntry, singleModel: boolean): Promise<string> {
  for (const name of new Set([entry.id, installFolder(entry)])) {
    if (await isDirectory(join(root, name))) return join(root, name);
  }
  const first = entry.source?.files[0];
  if (singleModel && first && (await findFile(root, [targetPath(first), first.path]))) return root;
  throw new InstallError(
    `no files for ${entry.id} in ${root}: expected a folder ${join(root, entry.id)}` + (singleModel ? ' or the model files directly inside it' : ''),
  );
}

/**
 * The files to copy from `modelRoot`: the manifest's, plus the external data their ONNX graphs
 * read (`model.onnx_data`: the test models and graphs over 2 GB keep their weights there; the hub's
 * exports of the catalogue are self-contained, so the manifest does not list it). Everything
 * missing, or shorter than the graph reads, is named in one error before anything is copied.
 */
export async function filesToImport(modelRoot: string, files: readonly CheckedFile[]): Promise<CheckedFile[]> {
  const lacking: string[] = [];
  const extra: CheckedFile[] = [];
  const listed = new Set(files.map(targetPath));
  for (const file of files) {
    const target = targetPath(file);
    const found = await findFile(modelRoot, [target, file.path]);
    if (!found) {
      lacking.push(target === file.path ? target : `${target} (or ${file.path})`);
      continue;
    }
    if (!target.endsWith('.onnx')) continue;
    // A graph that cannot be read is copied as it is: its pin decides, and the install names it (install-model.ts).
    const needs = await onnxExternalData(found).catch(() => []);
    for (const need of needs) {
      const installed = externalDataPath(target, need.location);
      if (installed === undefined) throw new InstallError(`${found} reads external data outside the model folder (${need.location})`);
      if (listed.has(installed)) continue;
      const copy = join(dirname(found), need.location);
      const size = (await stat(copy).catch(() => undefined))?.size;
      if (size === undefined) lacking.push(`${installed} (the weights of ${target})`);
      else if (size < need.minBytes) lacking.push(`${installed} (${size} bytes; ${target} reads ${need.minBytes})`);
      else {
        listed.add(installed);
        extra.push({ path: relative(modelRoot, copy).split(sep).join('/'), target: installed, size });
      }
    }
  }
  if (lacking.length > 0) {
    throw new InstallError(`incomplete model in ${modelRoot}: it lacks ${lacking.join(', ')}; copy the whole model folder`);
  }
  return [...files, ...extra];
}

/** A FetchFile that copies from `modelRoot` instead of downloading. */
export function copyFrom(modelRoot: string): FetchFile {
  return async (file, dest, label) => {
    const found = await findFile(modelRoot, [targetPath(file), file.path]);
    if (!found) {
      throw new InstallError(`${label}: not found in ${modelRoot} (looked for ${[...new Set([targetPath(file), file.path])].join(' and ')})`);
    }
    // Checked before copying: a wrong file of gigabytes is refused without filling the disk.
    const { size } = await stat(found);
    if (file.size !== undefined && size !== file.size) throw new InstallError(`size mismatch for ${label}: expected ${file.size} bytes, ${found} has ${size}`);
    await copyFile(found, dest);
  };
}

async function findFile(root: string, candidates: readonly string[]): Promise<string | undefined> {
  for (const candidate of candidates) {
    const path = join(root, candidate);
    if ((await stat(path).catch(() => undefined))?.isFile()) return path;
  }
  return undefined;
}

/** An archive made with `tar -C models -czf x.tgz .` or `tar -czf x.tgz models/`: skip the wrapper. */
async function descendSingleFolder(dir: string): Promise<string> {
  const entries = await readdir(dir, { withFileTypes: true });
  const only = entries[0];
  if (entries.length === 1 && only?.isDirectory()) {
    const inner = join(dir, only.name);
    const innerEntries = await readdir(inner, { withFileTypes: true });
    // Descend only into a pure wrapper: a folder of model folders. A model folder holds files.
    if (innerEntries.length > 0 && innerEntries.every((entry) => entry.isDirectory())) return inner;
  }
  return dir;
}

async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}
