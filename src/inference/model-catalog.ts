/**
 * The manifest as requests see it: which names exist (models and aliases), what task each
 * serves, whether its files are installed, how to install it, and how it is described in
 * GET /v1/models. It loads nothing; the registry (model-registry.ts) keeps models in memory and
 * tells the catalog what is loaded when it describes them.
 *
 * Every entry is checked when the catalog is built (engine, task, options), so a bad manifest
 * stops the server at start-up instead of answering 503 on a first request.
 */
import { join } from 'node:path';
import { ModelFilesError, ModelNotInstalledError, UnknownModelError, WrongModelTaskError } from '../errors.js';
import { hasInstallMarker, INSTALL_MARKER, type Engine, type EngineContext } from './engine.js';
import { NO_OPTIONS } from './engine-options.js';
import { ManifestError, type AliasEntry, type Manifest, type ManifestEntry } from './manifest.js';
import { ModelFolderCheck } from './model-folder-check.js';
import { knownSize } from './model-size.js';
import type { LogLevel } from '../config/load-config.js';
import type { Task } from './types.js';

export interface ModelInfo {
  id: string;
  task: Task;
  engine: string;
  description: string;
  license: string;
  default: boolean;
  installed: boolean;
  loaded: boolean;
  state: ModelState;
  /** Measured RSS growth of its load and first call; its files' size while its first load runs; null before. */
  memory_bytes: number | null;
  /** Unix seconds of its last use (a request or a load), null if never used since start. */
  last_used_at: number | null;
  [extra: string]: unknown;
}

type ModelState = 'unloaded' | 'loading' | 'loaded';

/** What the registry knows of a model's time in memory, for its ModelInfo. */
export interface Residency {
  state: ModelState;
  memoryBytes: number | null;
  /** Milliseconds since the epoch, or undefined if never used since start. */
  lastUsed: number | undefined;
}

/** `owned_by` of every model, as OpenAI's model objects name their owner. */
const OWNER = 'local-inference-server';

export interface ModelCatalogOptions {
  manifest: Manifest;
  modelsDir: string;
  engines: Readonly<Record<string, Engine>>;
  /** Aliases pinned to one model each (MODEL_ALIASES), over the manifest's `aliases`. */
  aliasOverrides?: Readonly<Record<string, string>>;
  /** LOG_LEVEL, for the lines engines' workers write themselves (EngineContext.logLevel); absent: info. */
  logLevel?: LogLevel;
  /** Checks each model's files (here: why one reads as not installed); tests pass one over a failing file system. */
  filesCheck?: ModelFolderCheck;
}

export class ModelCatalog {
  readonly #entries: ReadonlyMap<string, ManifestEntry>;
  readonly #aliases: ReadonlyMap<string, AliasEntry>;
  readonly #modelsDir: string;
  readonly #engines: Readonly<Record<string, Engine>>;
  readonly #logLevel: LogLevel | undefined;
  readonly #filesCheck: ModelFolderCheck;

  constructor(options: ModelCatalogOptions) {
    this.#modelsDir = options.modelsDir;
    this.#engines = options.engines;
    this.#logLevel = options.logLevel;
    this.#filesCheck = options.filesCheck ?? new ModelFolderCheck();
    for (const entry of options.manifest.models) checkEntry(entry, this.#engines);
    this.#entries = new Map(options.manifest.models.map((entry) => [entry.id, entry]));
    const aliases = new Map(Object.entries(options.manifest.aliases ?? {}));
    for (const [alias, id] of Object.entries(options.aliasOverrides ?? {})) {
      const entry = this.#entries.get(id);
      if (!entry) throw new ManifestError(`MODEL_ALIASES: ${alias}=${id} names no model of the manifest`);
      aliases.set(alias, { task: entry.task, prefer: [id] });
    }
    this.#aliases = aliases;
  }

  get entries(): Iterable<ManifestEntry> {
    return this.#entries.values();
  }

  /** Whether `name` is a model id or alias of the manifest. */
  knows(name: string): boolean {
    return this.#entries.has(name) || this.#aliases.has(name);
  }

  ids(): string[] {
    return [...this.#entries.keys()];
  }

  /** The entry of a model id (not an alias) that `resolve` returned. */
  entry(id: string): ManifestEntry {
    const entry = this.#entries.get(id);
    if (!entry) throw new UnknownModelError(id, this.ids());
    return entry;
  }

  /** The task a model id or alias serves (UnknownModelError for neither). */
  taskOf(name: string): Task {
    const task = this.#entries.get(name)?.task ?? this.#aliases.get(name)?.task;
    if (!task) throw new UnknownModelError(name, [...this.#entries.keys(), ...this.#aliases.keys()]);
    return task;
  }

  /**
   * The model id a request for `id` uses: `id` itself for a model, or for an alias its first
   * installed candidate. Throws the AppError the client should see: an unknown name lists only
   * installed models, so a client is never sent to one it cannot use.
   */
  async resolve(id: string, task: Task): Promise<string> {
    const entry = this.#entries.get(id);
    if (entry) {
      if (entry.task !== task) throw new WrongModelTaskError(id, entry.task, task);
      return id;
    }
    const alias = this.#aliases.get(id);
    if (!alias) {
      const installed = (await this.list(() => undefined)).filter((info) => info.task === task && info.installed).map((info) => info.id);
      throw new UnknownModelError(id, installed, task);
    }
    if (alias.task !== task) throw new WrongModelTaskError(id, alias.task, task);
    return this.#firstInstalled(id, this.#candidates(alias));
  }

  /**
   * The model a request that names none uses (TEI's /embed and /predict): the first installed
   * model of the task, `default` ones first, then in manifest order.
   */
  async defaultModel(task: Task): Promise<string> {
    const candidates = this.#candidates({ task, prefer: [] });
    if (candidates.length === 0) throw new UnknownModelError(`(any ${task} model)`, [], task);
    return this.#firstInstalled(candidates[0]!.id, candidates);
  }

  /** Every model of the manifest, then every alias with the model it stands for now. */
  async list(residency: (id: string) => Residency | undefined): Promise<ModelInfo[]> {
    const models = await Promise.all([...this.#entries.values()].map((entry) => this.#info(entry, residency(entry.id))));
    return [...models, ...[...this.#aliases].map(([name, alias]) => this.#aliasInfo(name, alias, models))];
  }

  /** Where the engine finds the model's files. */
  context(entry: ManifestEntry): EngineContext {
    return { modelDir: join(this.#modelsDir, entry.id), modelsDir: this.#modelsDir, ...(this.#logLevel ? { logLevel: this.#logLevel } : {}) };
  }

  /** The folder whose files the model loads (checked before each load), or undefined when it has none. */
  filesDir(entry: ManifestEntry): string | undefined {
    const engine = this.engineFor(entry);
    const context = this.context(entry);
    return engine.filesDir ? engine.filesDir(entry, context) : context.modelDir;
  }

  engineFor(entry: ManifestEntry): Engine {
    return this.#engines[entry.engine] as Engine;
  }

  isInstalled(entry: ManifestEntry): Promise<boolean> {
    const engine = this.engineFor(entry);
    const context = this.context(entry);
    return engine.isInstalled ? engine.isInstalled(entry, context) : hasInstallMarker(context.modelDir);
  }

  /** A hub source wins: the manifest's `installCommand` is how to install a model when not from the hub. */
  installCommand(entry: ManifestEntry): string {
    if (entry.source || entry.hubRepo) return `npm run download-models -- ${entry.id}`;
    return entry.installCommand ?? this.engineFor(entry).installCommand?.(entry) ?? `npm run download-models -- ${entry.id}`;
  }

  /** The error a request for `entry`, which reads as not installed, answers: see #refused. */
  async notInstalledError(entry: ManifestEntry): Promise<ModelFilesError | ModelNotInstalledError> {
    return (await this.#refused(entry)) ?? new ModelNotInstalledError(entry.id, this.installCommand(entry));
  }

  /**
   * A folder the server may not read looks absent (its install marker cannot be seen): then
   * permission denied, naming the folder, not "not installed", which would send the operator to
   * reinstall a model that is there. Undefined when the model is simply not installed.
   */
  async #refused(entry: ManifestEntry): Promise<ModelFilesError | undefined> {
    const filesDir = this.filesDir(entry);
    const problem = filesDir && (await this.#filesCheck.unreadable(this.#modelsDir, filesDir, INSTALL_MARKER));
    if (!problem) return undefined;
    return new ModelFilesError(entry.id, problem.file, problem.problem, problem.fix ?? `Reinstall it: ${this.installCommand(entry)}`);
  }

  async #firstInstalled(name: string, candidates: readonly ManifestEntry[]): Promise<string> {
    for (const candidate of candidates) {
      if (await this.isInstalled(candidate)) return candidate.id;
    }
    // None is usable: one that is there but refused to the server's user says so, as its id would.
    for (const candidate of candidates) {
      const refused = await this.#refused(candidate);
      if (refused) throw refused;
    }
    const first = candidates[0];
    throw first ? new ModelNotInstalledError(name, this.installCommand(first)) : new UnknownModelError(name, []);
  }

  /** An alias's candidates in order: its `prefer` list, then the task's `default` models, then the rest. */
  #candidates(alias: AliasEntry): ManifestEntry[] {
    const ofTask = [...this.#entries.values()].filter((entry) => entry.task === alias.task);
    const ranked = [...ofTask.filter((entry) => entry.default === true), ...ofTask.filter((entry) => entry.default !== true)];
    const preferred = alias.prefer.map((id) => this.#entries.get(id)!);
    return [...preferred, ...ranked.filter((entry) => !alias.prefer.includes(entry.id))];
  }

  /** What `resolve` would answer, read from the models' installed state just listed (no second look at the disk). */
  #aliasInfo(name: string, alias: AliasEntry, models: readonly ModelInfo[]): ModelInfo {
    const installed = new Set(models.filter((model) => model.installed).map((model) => model.id));
    const target = this.#candidates(alias).find((candidate) => installed.has(candidate.id))?.id;
    const info = models.find((model) => model.id === target);
    const { task } = alias;
    return {
      id: name,
      object: 'model',
      created: 0,
      owned_by: OWNER,
      task,
      engine: info?.engine ?? 'alias',
      description: `Alias: the best installed ${task} model${target ? ` (now ${target})` : ' (none installed)'}.`,
      license: info?.license ?? '',
      default: false,
      installed: target !== undefined,
      loaded: info?.loaded ?? false,
      state: info?.state ?? 'unloaded',
      memory_bytes: info?.memory_bytes ?? null,
      last_used_at: info?.last_used_at ?? null,
      alias_of: target ?? null,
    };
  }

  async #info(entry: ManifestEntry, residency: Residency | undefined): Promise<ModelInfo> {
    const engine = this.engineFor(entry);
    const lastUsed = residency?.lastUsed;
    const described = engine.describe?.(entry) ?? {};
    return {
      id: entry.id,
      object: 'model',
      // Unknown for local files; OpenAI clients read it as a Unix time.
      created: 0,
      owned_by: OWNER,
      task: entry.task,
      engine: entry.engine,
      description: entry.description,
      license: entry.license,
      default: entry.default === true,
      installed: await this.isInstalled(entry),
      loaded: residency?.state === 'loaded',
      state: residency?.state ?? 'unloaded',
      memory_bytes: residency?.memoryBytes ?? null,
      last_used_at: lastUsed === undefined ? null : Math.floor(lastUsed / 1000),
      ...(entry.installCommand || entry.source || entry.hubRepo || this.engineFor(entry).installCommand ? { install: this.installCommand(entry) } : {}),
      ...catalogFacts(entry, described),
      ...described,
    };
  }
}

/** What the catalogue states of a model before it is installed: size, languages, whether its real weights ran here, voices. */
function catalogFacts(entry: ManifestEntry, described: Record<string, unknown>): Record<string, unknown> {
  const languages = entry.languages ?? describedLanguages(described);
  const size = knownSize(entry);
  return {
    size_bytes: size?.bytes ?? null,
    ...(size?.estimated ? { size_estimated: true } : {}),
    languages: languages ?? null,
    real_weights_run_here: entry.realWeightsRunHere === true,
    ...(entry.voices ? { voices: entry.voices } : {}),
  };
}

/** A translation engine's source and target languages, as one list. */
function describedLanguages(described: Record<string, unknown>): string[] | undefined {
  const lists = [described.source_languages, described.target_languages].filter(Array.isArray) as string[][];
  return lists.length > 0 ? [...new Set(lists.flat())] : undefined;
}

/**
 * Start-up check of one manifest entry: its engine exists, serves its task, and accepts its
 * options. Throws a ManifestError naming the model and the field (the server prints it as a
 * configuration error and stops).
 */
export function checkEntry(entry: ManifestEntry, engines: Readonly<Record<string, Engine>>): void {
  const engine = engines[entry.engine];
  if (!engine) {
    throw new ManifestError(`model "${entry.id}" uses unknown engine "${entry.engine}" (known: ${Object.keys(engines).join(', ')})`);
  }
  if (!(engine.tasks as readonly Task[]).includes(entry.task)) {
    throw new ManifestError(`model "${entry.id}": engine "${entry.engine}" serves ${engine.tasks.join(', ')}, not task "${entry.task}"`);
  }
  (engine.options ?? NO_OPTIONS).read(entry);
}
