/**
 * The model manifest (`models/models.json`): which models exist, what task and engine serve
 * them, and where their files come from. It is data; engines interpret `options`.
 *
 * The generated catalogue (`catalog/*.json` beside the manifest, written by scripts/catalog/)
 * is the same schema, kept in its own files so that regenerating it never touches the
 * hand-written manifest; the reader merges them and refuses an id both define.
 */
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { TASKS, type Task } from './tasks.js';

export interface SourceFile {
  /** Path inside the repository. */
  path: string;
  /**
   * Path inside the installed model folder; defaults to `path`. Lets a voice stored deep in a
   * shared repository (piper-voices: `en/en_US/joe/medium/…`) be installed flat.
   */
  target?: string;
  /** Lower-case hex; when present the installer refuses any other bytes. */
  sha256?: string;
  /** Bytes; when present a download of another length is rejected before hashing. */
  size?: number;
  /** Lower-case hex MD5, where the publisher lists only that (piper-voices' voices.json); checked like sha256. */
  md5?: string;
}

interface HuggingFaceSource {
  type: 'huggingface';
  repo: string;
  /**
   * A full commit hash, so every install gets the same bytes. A tag (e.g. piper-voices
   * `v1.0.0`) is accepted only when every file pins its sha256 or md5: the bytes are then fixed anyway.
   */
  revision: string;
  files: SourceFile[];
}

export interface ManifestEntry {
  id: string;
  task: Task;
  engine: string;
  description: string;
  license: string;
  default?: boolean;
  /** Absent for engines that use system packages (Apertium). */
  source?: HuggingFaceSource;
  /**
   * Instead of `source`, for catalogue models whose files no public source lists: installed as
   * `hf:<repo>@<revision>` would be, the files for `options.dtype` read from the hub's file tree at
   * that revision and each checked against the SHA-256 the hub publishes for it.
   */
  hubRepo?: HubRepo;
  /** How to install it when not from the hub, e.g. "npm run test-models". */
  installCommand?: string;
  options?: Record<string, unknown>;
  /** Seconds unused before it is unloaded, over MODEL_IDLE_TTL; -1: never. */
  idleTtl?: number;
  /** Languages it serves (short codes: `en`, `pt-BR`); absent when the engine says (translation) or unknown. */
  languages?: string[];
  /** Whether this model's real weights were run on this project's machines (the test models and their hub twins). */
  realWeightsRunHere?: boolean;
  /** Disk taken once installed, for entries whose `source` files are not all sized (Debian packages, test models). */
  diskSize?: DiskSize;
  /** The `voice` names a multi-speaker voice answers to (its speakers), known before it is installed. */
  voices?: string[];
}

export interface HubRepo {
  repo: string;
  /** A commit; or, when none could be found to pin, a branch ("main") that the install resolves and records. */
  revision: string;
}

export interface DiskSize {
  bytes: number;
  /** Where the figure comes from, e.g. "Installed-Size of Debian apertium-eng-spa 0.8.1-2". */
  from: string;
}

/**
 * A model name clients send by habit (`whisper-1`, `tts-1`): it stands for the first installed model
 * of `prefer`, else any installed model of its task (`default` ones first, then manifest order).
 */
export interface AliasEntry {
  task: Task;
  prefer: string[];
}

export interface Manifest {
  models: ManifestEntry[];
  aliases?: Record<string, AliasEntry>;
  /** Ids of user-installed entries (local-entries.ts), not of the shipped file. */
  localIds?: readonly string[];
}

export class ManifestError extends Error {
  override name = 'ManifestError';
}

/** Where a source file lands inside `<MODELS_DIR>/<id>/`. */
export function targetPath(file: SourceFile): string {
  return file.target ?? file.path;
}

/** The folder of generated catalogue files beside a manifest. */
export const CATALOG_DIR = 'catalog';

/** The manifest at `path` merged with every `catalog/*.json` beside it (in name order). */
export async function readManifest(path: string): Promise<Manifest> {
  const shipped = parseManifest(await readJson(path), path);
  const catalogDir = join(dirname(path), CATALOG_DIR);
  const names = await readdir(catalogDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw new ManifestError(`Cannot read model catalogue ${catalogDir}: ${error.message}`);
  });
  const origins = new Map(shipped.models.map((entry) => [entry.id, path]));
  const models = [...shipped.models];
  for (const name of names.filter((file) => file.endsWith('.json')).sort()) {
    const file = join(catalogDir, name);
    const catalog = await readJson(file);
    if ((catalog as { aliases?: unknown })?.aliases !== undefined) throw new ManifestError(`${file}: aliases belong in ${path}`);
    for (const entry of parseManifest(catalog, file).models) {
      const other = origins.get(entry.id);
      if (other !== undefined) throw new ManifestError(`${file}: id "${entry.id}" is also defined in ${other}`);
      origins.set(entry.id, file);
      models.push(entry);
    }
  }
  if (models.length === shipped.models.length) return shipped;
  // Aliases may prefer catalogue models: checked again over the merged list.
  return parseManifest({ models, ...(shipped.aliases ? { aliases: shipped.aliases } : {}) }, `${path} + ${join(catalogDir, '*.json')}`);
}

async function readJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new ManifestError(`Cannot read model manifest ${path}: ${(error as Error).message}`);
  }
}

export function parseManifest(raw: unknown, origin = 'manifest'): Manifest {
  const models = (raw as { models?: unknown })?.models;
  if (!Array.isArray(models)) throw new ManifestError(`${origin}: "models" must be an array`);
  const seen = new Set<string>();
  for (const [index, entry] of models.entries()) {
    const where = `${origin}: models[${index}]`;
    if (typeof entry?.id !== 'string' || !/^[A-Za-z0-9._-]+$/.test(entry.id)) {
      throw new ManifestError(`${where}.id must match [A-Za-z0-9._-]+`);
    }
    if (seen.has(entry.id)) throw new ManifestError(`${where}: duplicate id "${entry.id}"`);
    seen.add(entry.id);
    if (!TASKS.includes(entry.task)) {
      throw new ManifestError(`${where}.task must be one of ${TASKS.join(', ')}`);
    }
    if (typeof entry.engine !== 'string') throw new ManifestError(`${where}.engine must be a string`);
    if (entry.source !== undefined) checkSource(entry.source, where);
    if (entry.hubRepo !== undefined) checkHubRepo(entry, where);
    if (entry.idleTtl !== undefined && !(entry.idleTtl === -1 || (typeof entry.idleTtl === 'number' && Number.isFinite(entry.idleTtl) && entry.idleTtl >= 0))) {
      throw new ManifestError(`${where}.idleTtl must be a number of seconds (0 or more), or -1 for never`);
    }
    checkCatalogFacts(entry, where);
  }
  const aliases = (raw as { aliases?: unknown }).aliases;
  if (aliases !== undefined) checkAliases(aliases, models as ManifestEntry[], origin);
  return { models: models as ManifestEntry[], ...(aliases === undefined ? {} : { aliases: aliases as Record<string, AliasEntry> }) };
}

function checkAliases(aliases: unknown, models: readonly ManifestEntry[], origin: string): void {
  if (typeof aliases !== 'object' || aliases === null || Array.isArray(aliases)) throw new ManifestError(`${origin}: "aliases" must be an object`);
  const tasks = new Map(models.map((entry) => [entry.id, entry.task]));
  for (const [name, alias] of Object.entries(aliases as Record<string, AliasEntry>)) {
    const where = `${origin}: aliases["${name}"]`;
    if (!/^[A-Za-z0-9._-]+$/.test(name)) throw new ManifestError(`${where}: an alias must match [A-Za-z0-9._-]+`);
    if (tasks.has(name)) throw new ManifestError(`${where}: a model already has this id`);
    if (!TASKS.includes(alias?.task)) throw new ManifestError(`${where}.task must be one of ${TASKS.join(', ')}`);
    if (!Array.isArray(alias.prefer)) throw new ManifestError(`${where}.prefer must be an array of model ids`);
    for (const id of alias.prefer) {
      if (tasks.get(id) !== alias.task) throw new ManifestError(`${where}.prefer: "${id}" is not a ${alias.task} model of the manifest`);
    }
  }
}

const LANGUAGE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

/** The facts --list and GET /v1/models show: languages, real-weights status, disk size, voices. */
function checkCatalogFacts(entry: ManifestEntry, where: string): void {
  const { languages, realWeightsRunHere, diskSize, voices } = entry;
  if (languages !== undefined && !(Array.isArray(languages) && languages.every((code) => typeof code === 'string' && LANGUAGE.test(code)))) {
    throw new ManifestError(`${where}.languages must be an array of language codes such as "en" or "pt-BR"`);
  }
  if (realWeightsRunHere !== undefined && typeof realWeightsRunHere !== 'boolean') throw new ManifestError(`${where}.realWeightsRunHere must be true or false`);
  if (diskSize !== undefined && !(Number.isSafeInteger(diskSize?.bytes) && diskSize.bytes > 0 && typeof diskSize.from === 'string' && diskSize.from !== '')) {
    throw new ManifestError(`${where}.diskSize must be {"bytes": <positive integer>, "from": "<where the figure comes from>"}`);
  }
  if (voices !== undefined && !(Array.isArray(voices) && voices.every((voice) => typeof voice === 'string' && voice !== ''))) {
    throw new ManifestError(`${where}.voices must be an array of voice names`);
  }
}

function checkHubRepo(entry: ManifestEntry, where: string): void {
  const { hubRepo } = entry;
  if (entry.source !== undefined) throw new ManifestError(`${where}: give "source" or "hubRepo", not both`);
  if (typeof hubRepo?.repo !== 'string' || !/^[A-Za-z0-9._-]+\/[A-Za-z0-9._-]+$/.test(hubRepo.repo)) {
    throw new ManifestError(`${where}.hubRepo.repo must look like "owner/name"`);
  }
  if (typeof hubRepo.revision !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(hubRepo.revision)) {
    throw new ManifestError(`${where}.hubRepo.revision must be a commit hash or a branch name`);
  }
}

/** Whether a revision is a full commit hash (the same bytes at every install). */
export function isCommit(revision: string): boolean {
  return /^[0-9a-f]{40}$/.test(revision);
}

function checkSource(source: HuggingFaceSource, where: string): void {
  if (source.type !== 'huggingface') throw new ManifestError(`${where}.source.type must be "huggingface"`);
  if (typeof source.repo !== 'string' || !/^[A-Za-z0-9._-]+\/[A-Za-z0-9._-]+$/.test(source.repo)) {
    throw new ManifestError(`${where}.source.repo must look like "owner/name"`);
  }
  if (!Array.isArray(source.files) || source.files.length === 0) {
    throw new ManifestError(`${where}.source.files must be a non-empty array`);
  }
  const isCommit = /^[0-9a-f]{40}$/.test(source.revision ?? '');
  const isTag = /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(source.revision ?? '');
  if (!isCommit && !(isTag && source.files.every((file) => typeof file?.sha256 === 'string' || typeof file?.md5 === 'string'))) {
    throw new ManifestError(`${where}.source.revision must be a 40-character commit hash (a tag only when every file pins its sha256 or md5)`);
  }
  const targets = new Set<string>();
  for (const file of source.files) {
    if (!isSafeRelativePath(file.path)) {
      throw new ManifestError(`${where}.source.files: invalid path ${JSON.stringify(file.path)}`);
    }
    if (file.target !== undefined && !isSafeRelativePath(file.target)) {
      throw new ManifestError(`${where}.source.files: invalid target ${JSON.stringify(file.target)}`);
    }
    if (file.sha256 !== undefined && !/^[0-9a-f]{64}$/.test(file.sha256)) {
      throw new ManifestError(`${where}.source.files: sha256 of ${file.path} must be 64 lower-case hex digits`);
    }
    if (file.md5 !== undefined && !/^[0-9a-f]{32}$/.test(file.md5)) {
      throw new ManifestError(`${where}.source.files: md5 of ${file.path} must be 32 lower-case hex digits`);
    }
    if (file.size !== undefined && !(Number.isSafeInteger(file.size) && file.size >= 0)) {
      throw new ManifestError(`${where}.source.files: size of ${file.path} must be a non-negative integer`);
    }
    const target = targetPath(file);
    if (targets.has(target)) throw new ManifestError(`${where}.source.files: two files install to ${target}`);
    targets.add(target);
  }
}

/** Relative, no `..` segment, no leading slash, no backslash: it cannot escape the model folder. */
function isSafeRelativePath(path: unknown): path is string {
  if (typeof path !== 'string' || path === '' || path.startsWith('/') || path.includes('\\')) return false;
  return path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}
