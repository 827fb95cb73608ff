/**
 * Knows every model in the manifest, whether it is installed, and loads each one lazily,
 * once: concurrent first requests wait on the same load. Every manifest entry is checked when
 * the registry is built (engine, task, options), so a bad manifest stops the server at start-up.
 * It also owns what models of a task share (the speech encoder) and closes it with them.
 *
 * Lifecycle (README "Model lifecycle"): a model idle for its time-out is unloaded (its workers
 * end); before a load that would pass the memory budget, the least recently used idle models are
 * unloaded; a model with a call in flight (model-handle.ts counts them) is never unloaded.
 */
import { join } from 'node:path';
import {
  ConflictError,
  ModelMemoryExhaustedError,
  ModelNotInstalledError,
  ModelUnavailableError,
  UnknownModelError,
  WrongModelTaskError,
} from '../errors.js';
import { hasInstallMarker, type Engine, type EngineContext } from './engine.js';
import { NO_OPTIONS } from './engine-options.js';
import { ManifestError, type AliasEntry, type Manifest, type ManifestEntry } from './manifest.js';
import { filesSize } from './lifecycle/files-size.js';
import { modelHandle } from './lifecycle/model-handle.js';
import { taskModel } from './task-models.js';
import { createSpeechEncoder, type SpeechEncoder } from './text-to-speech/speech-encoder.js';
import { LiveAudio } from './live-audio/live-audio.js';
import { vadModelFile } from './speech-to-text/silero-vad-engine.js';
import { DEFAULT_VAD_MODEL, VAD_INSTALL_COMMAND } from './speech-to-text/vad-request.js';
import { languageCandidates } from './translation/detect-language.js';
import type { Disposable, LanguageGuess, LiveAudioStream, ModelForTask, Task } from './types.js';

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

export type ModelState = 'unloaded' | 'loading' | 'loaded';

/** Why a model left memory. */
export type UnloadReason = 'idle' | 'memory' | 'admin';

export interface UnloadEvent {
  modelId: string;
  task: Task;
  reason: UnloadReason;
}

/** One model in memory (or on its way there). */
interface Resident {
  readonly entry: ManifestEntry;
  state: 'loading' | 'loaded';
  model: Disposable | undefined;
  ready: Promise<Disposable>;
  /** Calls in flight. */
  busy: number;
  lastUsed: number;
  /** Bytes counted against the budget: the estimate while loading, then what was measured. */
  bytes: number;
  /** Whether the RSS growth of a first call (ONNX arenas, caches) has been added to `bytes`. */
  warmed: boolean;
}

/** `owned_by` of every model, as OpenAI's model objects name their owner. */
const OWNER = 'local-inference-server';

export interface LoadEvent {
  modelId: string;
  task: Task;
  seconds: number;
  ok: boolean;
}

export interface ModelRegistryOptions {
  manifest: Manifest;
  modelsDir: string;
  engines: Readonly<Record<string, Engine>>;
  /** Makes the one speech encoder all voices share (on first use); tests pass their own. */
  createSpeechEncoder?: () => SpeechEncoder;
  /** Aliases pinned to one model each (MODEL_ALIASES), over the manifest's `aliases`. */
  aliasOverrides?: Readonly<Record<string, string>>;
  /** Seconds a model may stay unused before it is unloaded (MODEL_IDLE_TTL); -1: never. A manifest entry's `idleTtl` wins. */
  idleTtlSeconds?: number;
  /** Bytes all loaded models may take (MODELS_MAX_MEMORY); undefined: no budget. */
  maxMemoryBytes?: number;
  /** Milliseconds since the epoch; tests pass their own clock. */
  now?: () => number;
  /** Process RSS, to measure each load; null: do not measure (tests), the files' size is used. */
  rss?: (() => number) | null;
  /** The estimate before a model's first load; default: the size of its files. */
  estimateBytes?: (entry: ManifestEntry, modelDir: string) => Promise<number>;
  /** How often idle models are looked for (default: a quarter of the shortest time-out, 1–60 s). */
  sweepIntervalMs?: number;
}

export class ModelRegistry {
  readonly #entries: ReadonlyMap<string, ManifestEntry>;
  readonly #aliases: ReadonlyMap<string, AliasEntry>;
  readonly #modelsDir: string;
  readonly #engines: Readonly<Record<string, Engine>>;
  readonly #residents = new Map<string, Resident>();
  /** Last use of each model, kept after it is unloaded (for GET /v1/models). */
  readonly #lastUsed = new Map<string, number>();
  /** Bytes each model's load was measured to take (kept after unload: the estimate of its next load). */
  readonly #measured = new Map<string, number>();
  readonly #handles = new Map<string, object>();
  readonly #unloadListeners = new Set<(event: UnloadEvent) => void>();
  readonly #idleTtlSeconds: number;
  readonly #maxMemoryBytes: number | undefined;
  readonly #now: () => number;
  readonly #rss: (() => number) | null;
  readonly #estimateBytes: (entry: ManifestEntry, modelDir: string) => Promise<number>;
  readonly #sweeper: NodeJS.Timeout | undefined;
  /** Loads running now: a load's RSS growth is its own only when it ran alone. */
  #loadsRunning = 0;
  #loadsOverlapped = false;
  /** Calls in flight over all models, and a count of every call and load started (to see if one ran alone). */
  #callsRunning = 0;
  #activity = 0;
  /** Models of the running preload not tried yet. */
  #preloadPending: Set<string> | undefined;
  /** One MP3/WAV encoder for every voice; its worker starts on first use and stops when idle. */
  #speechEncoder: SpeechEncoder | undefined;
  readonly #createSpeechEncoder: () => SpeechEncoder;
  readonly #loadListeners = new Set<(event: LoadEvent) => void>();
  /** The worker behind realtime sessions' audio; starts with the first session. */
  #liveAudio: LiveAudio | undefined;

  constructor(options: ModelRegistryOptions) {
    this.#modelsDir = options.modelsDir;
    this.#engines = options.engines;
    this.#createSpeechEncoder = options.createSpeechEncoder ?? createSpeechEncoder;
    for (const entry of options.manifest.models) checkEntry(entry, this.#engines);
    this.#entries = new Map(options.manifest.models.map((entry) => [entry.id, entry]));
    const aliases = new Map(Object.entries(options.manifest.aliases ?? {}));
    for (const [alias, id] of Object.entries(options.aliasOverrides ?? {})) {
      const entry = this.#entries.get(id);
      if (!entry) throw new ManifestError(`MODEL_ALIASES: ${alias}=${id} names no model of the manifest`);
      aliases.set(alias, { task: entry.task, prefer: [id] });
    }
    this.#aliases = aliases;
    this.#idleTtlSeconds = options.idleTtlSeconds ?? -1;
    this.#maxMemoryBytes = options.maxMemoryBytes;
    this.#now = options.now ?? Date.now;
    this.#rss = options.rss === undefined ? () => process.memoryUsage.rss() : options.rss;
    this.#estimateBytes = options.estimateBytes ?? ((_entry, dir) => filesSize(dir));
    const ttls = [this.#idleTtlSeconds, ...options.manifest.models.map((entry) => entry.idleTtl ?? -1)].filter((ttl) => ttl >= 0);
    if (ttls.length > 0) {
      const interval = options.sweepIntervalMs ?? Math.min(60_000, Math.max(1_000, (Math.min(...ttls) * 1000) / 4));
      // A worker that fails to free its sessions is terminated by its own dispose; nothing to add here.
      this.#sweeper = setInterval(() => void this.unloadIdle().catch(() => {}), interval).unref();
    }
  }

  /** Whether `name` is a model id or alias of the manifest. */
  knows(name: string): boolean {
    return this.#entries.has(name) || this.#aliases.has(name);
  }

  ids(): string[] {
    return [...this.#entries.keys()];
  }

  /** Every model of the manifest, then every alias with the model it stands for now. */
  async list(): Promise<ModelInfo[]> {
    const models = await Promise.all([...this.#entries.values()].map((entry) => this.#info(entry)));
    return [...models, ...[...this.#aliases].map(([name, alias]) => this.#aliasInfo(name, alias, models))];
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
      const installed = (await this.list()).filter((info) => info.task === task && info.installed).map((info) => info.id);
      throw new UnknownModelError(id, installed);
    }
    if (alias.task !== task) throw new WrongModelTaskError(id, alias.task, task);
    const candidates = this.#candidates(alias);
    for (const candidate of candidates) {
      if (await this.#isInstalled(candidate, this.#engineFor(candidate), this.#context(candidate))) return candidate.id;
    }
    const first = candidates[0];
    throw first ? new ModelNotInstalledError(id, this.#installCommand(first, this.#engineFor(first))) : new UnknownModelError(id, []);
  }

  /**
   * The model a request that names none uses (TEI's /embed and /predict): the first installed
   * model of the task, `default` ones first, then in manifest order.
   */
  async defaultModel(task: Task): Promise<string> {
    const candidates = this.#candidates({ task, prefer: [] });
    for (const candidate of candidates) {
      if (await this.#isInstalled(candidate, this.#engineFor(candidate), this.#context(candidate))) return candidate.id;
    }
    const first = candidates[0];
    if (!first) throw new UnknownModelError(`(any ${task} model)`, []);
    throw new ModelNotInstalledError(first.id, this.#installCommand(first, this.#engineFor(first)));
  }

  /** Loads (once) and returns the model, or throws the AppError the client should see. */
  async get<T extends Task>(name: string, task: T): Promise<ModelForTask[T]> {
    const id = await this.resolve(name, task);
    const model = await this.#acquire(id);
    return this.#handle(id, model) as ModelForTask[T];
  }

  /**
   * Loads a model (an id or alias, of any task) now, as PRELOAD_MODELS and the admin API do;
   * resolves to its id once it is loaded.
   */
  async load(name: string): Promise<string> {
    const id = await this.resolve(name, this.#taskOf(name));
    await this.#acquire(id);
    return id;
  }

  /**
   * Unloads a model (id or alias) now: false if it was not loaded. A model with calls in flight
   * or still loading is refused with a ConflictError (409).
   */
  async unload(name: string): Promise<{ id: string; unloaded: boolean }> {
    const id = await this.resolve(name, this.#taskOf(name));
    const resident = this.#residents.get(id);
    if (!resident) return { id, unloaded: false };
    if (resident.state === 'loading') throw new ConflictError(`Model "${id}" is still loading; unload it once it is loaded`);
    if (resident.busy > 0) throw new ConflictError(`Model "${id}" is answering ${resident.busy} request(s); unload it when they are done`);
    await this.#unload(resident, 'admin');
    return { id, unloaded: true };
  }

  /** Unloads every idle model whose time-out has passed (runs on a timer; tests call it). */
  async unloadIdle(): Promise<void> {
    const now = this.#now();
    const expired = [...this.#residents.values()].filter((resident) => {
      const ttl = resident.entry.idleTtl ?? this.#idleTtlSeconds;
      return ttl >= 0 && resident.state === 'loaded' && resident.busy === 0 && now - resident.lastUsed >= ttl * 1000;
    });
    await Promise.all(expired.map((resident) => this.#unload(resident, 'idle')));
  }

  /**
   * Loads `names` (ids or aliases) one after another; until all have been tried,
   * `preloadProblem()` says which are pending (for /readyz). A failure is reported, not thrown.
   */
  async preload(names: readonly string[], onError: (name: string, error: Error) => void = () => {}): Promise<void> {
    const pending = new Set(names);
    this.#preloadPending = pending;
    for (const name of names) {
      try {
        await this.load(name);
      } catch (error) {
        onError(name, error as Error);
      }
      pending.delete(name);
    }
  }

  /** Why the server is not ready yet as far as models go (preloads still running), or undefined. */
  preloadProblem(): string | undefined {
    const pending = this.#preloadPending;
    return pending && pending.size > 0 ? `loading models: ${[...pending].join(', ')}` : undefined;
  }

  /** The models in memory or loading now, with the bytes each counts against the budget (for metrics). */
  residents(): Array<{ id: string; state: 'loading' | 'loaded'; bytes: number }> {
    return [...this.#residents.values()].map((resident) => ({ id: resident.entry.id, state: resident.state, bytes: resident.bytes }));
  }

  /** Calls `listener` after each model unload; returns the function that stops it. */
  onUnload(listener: (event: UnloadEvent) => void): () => void {
    this.#unloadListeners.add(listener);
    return () => this.#unloadListeners.delete(listener);
  }

  /** Calls `listener` after each model load attempt; returns the function that stops it. */
  onLoad(listener: (event: LoadEvent) => void): () => void {
    this.#loadListeners.add(listener);
    return () => this.#loadListeners.delete(listener);
  }

  /** Languages `text` may be in, most likely first (empty if nothing matches); cheap, no model. */
  identifyLanguage(text: string): LanguageGuess[] {
    return languageCandidates(text);
  }

  /**
   * A stream for a realtime session's audio: PCM16 at `inputSampleRate` → 16 kHz, with speech
   * probabilities from the voice-activity model when `detectSpeech`.
   */
  async openLiveAudio(options: { inputSampleRate: number; detectSpeech: boolean }): Promise<LiveAudioStream> {
    if (!this.#liveAudio) {
      const vadModelPath = await vadModelFile(this.#modelsDir);
      // Checked again: another session may have started it while the file was looked up.
      this.#liveAudio ??= new LiveAudio({ vadModelPath });
    }
    if (options.detectSpeech && !this.#liveAudio.canDetectSpeech) throw new ModelNotInstalledError(DEFAULT_VAD_MODEL, VAD_INSTALL_COMMAND);
    return this.#liveAudio.open(options);
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    const loads = [...this.#residents.values()].map((resident) => resident.ready);
    this.#residents.clear();
    await Promise.allSettled(loads.map(async (load) => (await load).dispose()));
    const encoder = this.#speechEncoder;
    this.#speechEncoder = undefined;
    await encoder?.dispose();
    const liveAudio = this.#liveAudio;
    this.#liveAudio = undefined;
    await liveAudio?.dispose();
  }

  /** The task a model id or alias serves (UnknownModelError for neither). */
  #taskOf(name: string): Task {
    const task = this.#entries.get(name)?.task ?? this.#aliases.get(name)?.task;
    if (!task) throw new UnknownModelError(name, [...this.#entries.keys(), ...this.#aliases.keys()]);
    return task;
  }

  /** The model `id` loaded (loading it first if needed), its last use now. */
  async #acquire(id: string): Promise<Disposable> {
    let resident = this.#residents.get(id);
    if (!resident) {
      const entry = this.#entries.get(id)!;
      const estimate = this.#measured.get(id) ?? (await this.#estimateBytes(entry, this.#context(entry).modelDir));
      // Another request may have started the load while the estimate was read.
      resident = this.#residents.get(id) ?? this.#startLoad(entry, estimate);
    }
    this.#touch(resident);
    return resident.ready;
  }

  /**
   * Makes room and registers the load in one synchronous step, so two loads at once cannot both
   * count on the same free memory.
   */
  #startLoad(entry: ManifestEntry, estimate: number): Resident {
    const victims = this.#makeRoom(entry.id, estimate);
    const resident: Resident = { entry, state: 'loading', model: undefined, ready: undefined!, busy: 0, lastUsed: this.#now(), bytes: estimate, warmed: false };
    this.#residents.set(entry.id, resident);
    resident.ready = (async () => {
      await Promise.allSettled(victims.map((victim) => this.#unload(victim, 'memory')));
      return this.#measuredLoad(resident);
    })();
    resident.ready.then(
      (model) => {
        resident.model = model;
        resident.state = 'loaded';
      },
      // A failed load is forgotten so that installing the model fixes it without a restart.
      () => {
        if (this.#residents.get(entry.id) === resident) this.#residents.delete(entry.id);
      },
    );
    return resident;
  }

  /**
   * The idle models to unload, least recently used first, so that `bytes` more fit the budget.
   * They leave the count at once (their unload follows). Throws 503 when busy models leave no room.
   */
  #makeRoom(id: string, bytes: number): Resident[] {
    const budget = this.#maxMemoryBytes;
    if (budget === undefined) return [];
    const residents = [...this.#residents.values()];
    let used = residents.reduce((sum, resident) => sum + resident.bytes, 0);
    const idle = residents.filter((resident) => resident.state === 'loaded' && resident.busy === 0).sort((a, b) => a.lastUsed - b.lastUsed);
    const victims: Resident[] = [];
    while (used + bytes > budget && idle.length > 0) {
      const victim = idle.shift()!;
      victims.push(victim);
      used -= victim.bytes;
    }
    if (used + bytes > budget) throw new ModelMemoryExhaustedError(id, bytes, budget, used);
    for (const victim of victims) this.#residents.delete(victim.entry.id);
    return victims;
  }

  async #unload(resident: Resident, reason: UnloadReason): Promise<void> {
    if (this.#residents.get(resident.entry.id) === resident) this.#residents.delete(resident.entry.id);
    const model = await resident.ready.catch(() => undefined);
    if (!model) return;
    await model.dispose();
    // The voices' shared encoder goes with the last voice, so unloading every voice frees it too.
    if (resident.entry.task === 'text-to-speech' && ![...this.#residents.values()].some((other) => other.entry.task === 'text-to-speech')) {
      const encoder = this.#speechEncoder;
      this.#speechEncoder = undefined;
      await encoder?.dispose();
    }
    const event = { modelId: resident.entry.id, task: resident.entry.task, reason };
    for (const listener of this.#unloadListeners) listener(event);
  }

  #touch(resident: Resident): void {
    resident.lastUsed = this.#now();
    this.#lastUsed.set(resident.entry.id, resident.lastUsed);
  }

  /** The handed-out object of `id`: it counts calls in flight and loads the model again if it was unloaded. */
  #handle(id: string, loaded: Disposable): object {
    let handle = this.#handles.get(id);
    if (!handle) {
      let last: object = loaded;
      handle = modelHandle({
        current: () => {
          const model = this.#residents.get(id)?.model;
          if (model) last = model;
          return model;
        },
        load: () => this.#acquire(id),
        last: () => last,
        begin: () => {
          const resident = this.#residents.get(id)!;
          resident.busy++;
          this.#touch(resident);
          // A model's first call grows its memory too (ONNX arenas); measured when nothing else runs.
          const alone = this.#rss !== null && !resident.warmed && this.#callsRunning === 0 && this.#loadsRunning === 0;
          const before = alone ? this.#rss!() : undefined;
          this.#callsRunning++;
          if (this.#loadsRunning > 0) this.#loadsOverlapped = true;
          const started = ++this.#activity;
          return () => {
            resident.busy--;
            this.#callsRunning--;
            this.#touch(resident);
            if (before !== undefined && this.#activity === started && !resident.warmed) {
              resident.warmed = true;
              resident.bytes += Math.max(0, this.#rss!() - before);
              this.#measured.set(id, resident.bytes);
            }
          };
        },
      });
      this.#handles.set(id, handle);
    }
    return handle;
  }

  /** The load, and the RSS it added when no other load ran at the same time (then it is the model's own). */
  async #measuredLoad(resident: Resident): Promise<Disposable> {
    const before = this.#rss?.();
    this.#activity++;
    if (this.#loadsRunning++ > 0 || this.#callsRunning > 0) this.#loadsOverlapped = true;
    let model: Disposable;
    try {
      model = await this.#timedLoad(resident.entry);
    } finally {
      this.#loadsRunning--;
    }
    if (before !== undefined && this.#rss && !this.#loadsOverlapped) {
      const grown = Math.max(0, this.#rss() - before);
      this.#measured.set(resident.entry.id, grown);
      resident.bytes = grown;
    }
    if (this.#loadsRunning === 0) this.#loadsOverlapped = false;
    return model;
  }

  async #timedLoad(entry: ManifestEntry): Promise<Disposable> {
    const started = performance.now();
    const report = (ok: boolean) => {
      const event = { modelId: entry.id, task: entry.task, seconds: (performance.now() - started) / 1000, ok };
      for (const listener of this.#loadListeners) listener(event);
    };
    try {
      const model = await this.#load(entry);
      report(true);
      return model;
    } catch (error) {
      report(false);
      throw error;
    }
  }

  async #load(entry: ManifestEntry): Promise<Disposable> {
    const engine = this.#engineFor(entry);
    const context = this.#context(entry);
    if (!(await this.#isInstalled(entry, engine, context))) {
      throw new ModelNotInstalledError(entry.id, this.#installCommand(entry, engine));
    }
    try {
      const model = await engine.load(entry, context);
      return taskModel(entry.task, model, entry.id, { speechEncoder: () => (this.#speechEncoder ??= this.#createSpeechEncoder()) });
    } catch (error) {
      throw new ModelUnavailableError(entry.id, (error as Error).message);
    }
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

  async #info(entry: ManifestEntry): Promise<ModelInfo> {
    const engine = this.#engineFor(entry);
    const resident = this.#residents.get(entry.id);
    const lastUsed = this.#lastUsed.get(entry.id);
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
      installed: await this.#isInstalled(entry, engine, this.#context(entry)),
      loaded: resident?.state === 'loaded',
      state: resident?.state ?? 'unloaded',
      memory_bytes: resident?.bytes ?? this.#measured.get(entry.id) ?? null,
      last_used_at: lastUsed === undefined ? null : Math.floor(lastUsed / 1000),
      ...(entry.installCommand || entry.source ? { install: this.#installCommand(entry, engine) } : {}),
      ...engine.describe?.(entry),
    };
  }

  #engineFor(entry: ManifestEntry): Engine {
    return this.#engines[entry.engine] as Engine;
  }

  #context(entry: ManifestEntry): EngineContext {
    return { modelDir: join(this.#modelsDir, entry.id), modelsDir: this.#modelsDir };
  }

  #isInstalled(entry: ManifestEntry, engine: Engine, context: EngineContext): Promise<boolean> {
    return engine.isInstalled ? engine.isInstalled(entry, context) : hasInstallMarker(context.modelDir);
  }

  #installCommand(entry: ManifestEntry, engine: Engine): string {
    return entry.installCommand ?? engine.installCommand?.(entry) ?? `npm run download-models -- ${entry.id}`;
  }
}

/**
 * Start-up check of one manifest entry: its engine exists, serves its task, and accepts its
 * options. Throws a ManifestError naming the model and the field (the server prints it as a
 * configuration error and stops).
 */
function checkEntry(entry: ManifestEntry, engines: Readonly<Record<string, Engine>>): void {
  const engine = engines[entry.engine];
  if (!engine) {
    throw new ManifestError(`model "${entry.id}" uses unknown engine "${entry.engine}" (known: ${Object.keys(engines).join(', ')})`);
  }
  if (!(engine.tasks as readonly Task[]).includes(entry.task)) {
    throw new ManifestError(
      `model "${entry.id}": engine "${entry.engine}" serves ${engine.tasks.join(', ')}, not task "${entry.task}"`,
    );
  }
  (engine.options ?? NO_OPTIONS).read(entry);
}
