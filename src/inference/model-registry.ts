/**
 * Loads the manifest's models (model-catalog.ts knows which exist and whether they are installed)
 * lazily, once, and hands out handles that count calls in flight. What it composes, one job each,
 * lives in lifecycle/: the record of models in memory and their loads (residents.ts), what each
 * load and first call adds to RSS (memory-meter.ts), MODELS_MAX_MEMORY (memory-budget.ts),
 * MODEL_IDLE_TTL (idle-sweeper.ts), and what models and sessions share (shared-services.ts).
 *
 * Lifecycle (docs/operations.md, "Model lifecycle"): a model idle for its time-out is unloaded (its workers
 * end); before a load that would pass the memory budget, and whenever a measurement raises the
 * count past it, the least recently used idle models are unloaded; a model with a call in flight
 * (model-handle.ts counts them) is never unloaded.
 */
import { AppError, ConflictError, ModelUnavailableError } from '../errors.js';
import type { ManifestEntry } from './manifest.js';
import { ModelCatalog, type ModelCatalogOptions, type ModelInfo } from './model-catalog.js';
import { ModelFolderCheck } from './model-folder-check.js';
import { filesSize } from './lifecycle/files-size.js';
import { IdleSweeper } from './lifecycle/idle-sweeper.js';
import { footprintBytes, MemoryBudget, type Footprint } from './lifecycle/memory-budget.js';
import { MemoryMeter } from './lifecycle/memory-meter.js';
import { modelHandle } from './lifecycle/model-handle.js';
import { Residents, type Resident } from './lifecycle/residents.js';
import { SharedServices } from './lifecycle/shared-services.js';
import { taskModel } from './task-models.js';
import type { DecodeOptions } from './embeddings/token-decoder.js';
import type { DecodeResult } from './embeddings/token-decoder-protocol.js';
import type { TokenEncoding } from './embeddings/token-encodings.js';
import { createSpeechEncoder, type SpeechEncoder } from './text-to-speech/speech-encoder.js';
import type { Disposable, LiveAudioOptions, LiveAudioStream, ModelForTask, Task } from './types.js';

export type { ModelInfo } from './model-catalog.js';
/** Languages a text may be in, most likely first (LibreTranslate's /detect, source "auto"); here since src/http sees inference only here and in types.ts. */
export { languageCandidates as identifyLanguage } from './translation/detect-language.js';
/** OpenAI's embeddings protocol, for every embedding model: token-id inputs and `dimensions`. */
export { claimedEncoding, TOKENIZED_MODEL_NAMES, type TokenEncoding } from './embeddings/token-encodings.js';
export type { DecodeResult } from './embeddings/token-decoder-protocol.js';
export { shortenEmbedding } from './embeddings/shorten-embedding.js';

/** Why a model left memory. */
type UnloadReason = 'idle' | 'memory' | 'admin';

export interface UnloadEvent {
  modelId: string;
  task: Task;
  reason: UnloadReason;
  /** What it counted against the budget. */
  memoryBytes: number;
}

/** A load attempt: once it is counted (with what it counts against the budget), or why it failed. */
type LoadEvent = { modelId: string; task: Task; seconds: number } & ({ ok: true; memoryBytes: number } | { ok: false; error: string });

export interface ModelRegistryOptions extends ModelCatalogOptions {
  /** Makes the one speech encoder all voices share (on first use); tests pass their own. */
  createSpeechEncoder?: () => SpeechEncoder;
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
  readonly #catalog: ModelCatalog;
  readonly #residents: Residents;
  readonly #meter: MemoryMeter;
  readonly #budget: MemoryBudget<Resident>;
  readonly #sweeper: IdleSweeper;
  readonly #shared: SharedServices;
  readonly #handles = new Map<string, object>();
  readonly #unloadListeners = new Set<(event: UnloadEvent) => void>();
  readonly #loadListeners = new Set<(event: LoadEvent) => void>();
  readonly #now: () => number;
  readonly #estimateBytes: (entry: ManifestEntry, modelDir: string) => Promise<number>;
  readonly #filesCheck: ModelFolderCheck;
  /** Models of the running preload not tried yet. */
  #preloadPending: Set<string> | undefined;

  constructor(options: ModelRegistryOptions) {
    // One file system for both the catalog's "not installed" and each load's check (tests inject a failing one).
    this.#filesCheck = options.filesCheck ?? new ModelFolderCheck();
    this.#catalog = new ModelCatalog({ ...options, filesCheck: this.#filesCheck });
    this.#now = options.now ?? Date.now;
    this.#residents = new Residents(this.#now);
    this.#meter = new MemoryMeter(options.rss === undefined ? () => process.memoryUsage.rss() : options.rss);
    // The budget's unloads take their model out of the count at once (#unload's first step).
    this.#budget = new MemoryBudget(options.maxMemoryBytes, (victim) => this.#unload(victim, 'memory'));
    this.#estimateBytes = options.estimateBytes ?? ((_entry, dir) => filesSize(dir));
    this.#shared = new SharedServices(options.modelsDir, options.createSpeechEncoder ?? createSpeechEncoder);
    this.#sweeper = new IdleSweeper({
      idleTtlSeconds: options.idleTtlSeconds ?? -1,
      entries: options.manifest.models,
      intervalMs: options.sweepIntervalMs,
      sweep: () => this.unloadIdle(),
    });
  }

  /** Whether `name` is a model id or alias of the manifest. */
  knows(name: string): boolean {
    return this.#catalog.knows(name);
  }

  ids(): string[] {
    return this.#catalog.ids();
  }

  /** The task a model id or alias serves (UnknownModelError for neither). */
  taskOf(name: string): Task {
    return this.#catalog.taskOf(name);
  }

  /** Every model of the manifest (with what is loaded now), then every alias with the model it stands for now. */
  list(): Promise<ModelInfo[]> {
    return this.#catalog.list((id) => this.#residents.residency(id));
  }

  /** The model id a request for `id` (a model or an alias) uses; see ModelCatalog.resolve. */
  resolve(id: string, task: Task): Promise<string> {
    return this.#catalog.resolve(id, task);
  }

  /** The model a request that names none uses (TEI's /embed and /predict); see ModelCatalog.defaultModel. */
  defaultModel(task: Task): Promise<string> {
    return this.#catalog.defaultModel(task);
  }

  /** Loads (once) and returns the model, or throws the AppError the client should see. */
  async get<T extends Task>(name: string, task: T): Promise<ModelForTask[T]> {
    return (await this.open(name, task)).model;
  }

  /**
   * `get`, also saying which model `name` resolved to: the one place a request's model name is
   * resolved (an alias may stand for another model by the next call). `admit(id)` runs before the
   * load, so a model the caller may not use is never loaded for it.
   */
  async open<T extends Task>(name: string, task: T, admit?: (id: string) => void): Promise<{ id: string; model: ModelForTask[T] }> {
    const id = await this.resolve(name, task);
    admit?.(id);
    const model = await this.#acquire(id);
    return { id, model: this.#handle(id, model) as ModelForTask[T] };
  }

  /**
   * Loads a model (an id or alias, of any task) now, as PRELOAD_MODELS and the admin API do;
   * resolves to its id once it is loaded.
   */
  async load(name: string): Promise<string> {
    const id = await this.resolve(name, this.#catalog.taskOf(name));
    await this.#acquire(id);
    return id;
  }

  /**
   * Unloads a model (id or alias) now: false if it was not loaded. A model with calls in flight
   * or still loading is refused with a ConflictError (409).
   */
  async unload(name: string): Promise<{ id: string; unloaded: boolean }> {
    const id = await this.resolve(name, this.#catalog.taskOf(name));
    const resident = this.#residents.get(id);
    if (!resident) return { id, unloaded: false };
    if (resident.state === 'loading') throw new ConflictError(`Model "${id}" is still loading; unload it once it is loaded`);
    if (resident.busy > 0) throw new ConflictError(`Model "${id}" is answering ${resident.busy} request(s); unload it when they are done`);
    await this.#unload(resident, 'admin');
    return { id, unloaded: true };
  }

  /** Unloads every idle model whose time-out has passed (runs on a timer; tests call it). */
  async unloadIdle(): Promise<void> {
    const expired = this.#sweeper.expired(this.#residents.values(), this.#now());
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
    return this.#residents.values().map((resident) => ({ id: resident.entry.id, state: resident.state, bytes: resident.bytes }));
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

  /** A stream for a realtime session's audio; see SharedServices.openLiveAudio. */
  openLiveAudio(options: LiveAudioOptions): Promise<LiveAudioStream> {
    return this.#shared.openLiveAudio(options);
  }

  /**
   * Texts of OpenAI token ids (an embedding request's `input`), decoded in a thread of their own:
   * see TokenDecoder. No model is involved, so no key's model list applies.
   */
  decodeTokens(encoding: TokenEncoding, inputs: readonly (readonly number[])[], options: DecodeOptions): Promise<DecodeResult> {
    return this.#shared.tokenDecoder().decode(encoding, inputs, options);
  }

  async close(): Promise<void> {
    this.#sweeper.stop();
    const loads = this.#residents.removeAll().map((resident) => resident.ready);
    await Promise.allSettled([...loads.map(async (load) => (await load).dispose()), this.#budget.settled()]);
    await this.#shared.close();
  }

  /** The model `id` loaded (loading it first if needed), its last use now. */
  async #acquire(id: string): Promise<Disposable> {
    const entry = this.#catalog.entry(id);
    const estimateBytes = () => this.#estimateBytes(entry, this.#catalog.context(entry).modelDir);
    const resident = await this.#residents.acquire(entry, estimateBytes, (estimate) => this.#startLoad(entry, estimate));
    this.#residents.touch(resident);
    return resident.ready;
  }

  /**
   * Makes room and registers the load in one synchronous step, so two loads at once cannot both
   * count on the same free memory. The models unloaded for room leave the count at once.
   */
  #startLoad(entry: ManifestEntry, estimate: Footprint): Resident {
    const victims = this.#budget.makeRoom(this.#residents.values(), entry.id, footprintBytes(estimate));
    for (const victim of victims) this.#residents.remove(victim);
    return this.#residents.add(entry, estimate, async (resident) => {
      await Promise.allSettled(victims.map((victim) => this.#unload(victim, 'memory')));
      return this.#measuredLoad(resident);
    });
  }

  /**
   * Counts `resident` at `footprint` from now on and for its next load, and holds the budget:
   * a measurement is often well above the estimate the load was admitted on.
   */
  #recount(resident: Resident, footprint: Footprint): void {
    this.#residents.recount(resident, footprint);
    this.#budget.hold(this.#residents.values());
  }

  async #unload(resident: Resident, reason: UnloadReason): Promise<void> {
    this.#residents.remove(resident);
    const model = await resident.ready.catch(() => undefined);
    if (!model) return;
    await model.dispose();
    // The voices' shared encoder goes with the last voice, so unloading every voice frees it too.
    if (resident.entry.task === 'text-to-speech' && !this.#residents.values().some((other) => other.entry.task === 'text-to-speech')) {
      await this.#shared.closeSpeechEncoder();
    }
    const event = { modelId: resident.entry.id, task: resident.entry.task, reason, memoryBytes: resident.bytes };
    for (const listener of this.#unloadListeners) listener(event);
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
        begin: () => this.#beginCall(this.#residents.get(id)!),
      });
      this.#handles.set(id, handle);
    }
    return handle;
  }

  /** A call to `resident` starts; the returned function ends it. */
  #beginCall(resident: Resident): () => void {
    resident.busy++;
    this.#residents.touch(resident);
    // A model's first call grows its memory too (ONNX arenas): the meter measures the first only.
    const first = !resident.warmed;
    resident.warmed = true;
    const end = this.#meter.beginCall(first);
    return () => {
      resident.busy--;
      const growth = end();
      this.#residents.touch(resident);
      if (growth !== undefined) {
        // A first call's growth depends on its input (a short text grows the arenas less), so
        // the largest seen, which an earlier residency's estimate already counted, stays.
        const warmup = Math.max(resident.footprint.warmup, growth);
        this.#recount(resident, { load: resident.footprint.load, warmup });
      } else {
        // A busy model that kept the budget passed may be idle now.
        this.#budget.hold(this.#residents.values());
      }
    };
  }

  /**
   * The load, timed, counted at the RSS it added when the meter could tell it apart (else at its
   * estimate: its last measure, or its files' size, which is often low); load listeners hear of it
   * once it is counted.
   */
  async #measuredLoad(resident: Resident): Promise<Disposable> {
    const started = performance.now();
    let measured: { value: Disposable; growth: number | undefined };
    try {
      measured = await this.#meter.measureLoad(() => this.#load(resident.entry));
    } catch (error) {
      this.#reportLoad(resident, started, error as Error);
      throw error;
    }
    // The warm-up of an earlier residency stays counted until this one's first call measures it.
    if (measured.growth !== undefined) this.#recount(resident, { load: measured.growth, warmup: resident.footprint.warmup });
    this.#reportLoad(resident, started);
    return measured.value;
  }

  #reportLoad(resident: Resident, started: number, error?: Error): void {
    const { id: modelId, task } = resident.entry;
    const seconds = (performance.now() - started) / 1000;
    const event: LoadEvent = error
      ? { modelId, task, seconds, ok: false, error: error.message }
      : { modelId, task, seconds, ok: true, memoryBytes: resident.bytes };
    for (const listener of this.#loadListeners) listener(event);
  }

  #dtypes(entry: ManifestEntry): string[] | undefined {
    return dtypesOf(this.#catalog.engineFor(entry).options?.read(entry));
  }

  async #load(entry: ManifestEntry): Promise<Disposable> {
    const { modelsDir } = this.#catalog.context(entry);
    const filesDir = this.#catalog.filesDir(entry);
    const reinstall = this.#catalog.installCommand(entry);
    if (!(await this.#catalog.isInstalled(entry))) throw await this.#catalog.notInstalledError(entry);
    // Before any session is made: a missing or cut-short weight file must not reach onnxruntime.
    if (filesDir) await this.#filesCheck.check(entry.id, modelsDir, filesDir, reinstall, this.#dtypes(entry));
    try {
      const model = await this.#catalog.engineFor(entry).load(entry, this.#catalog.context(entry));
      return taskModel(entry.task, model, entry.id, { speechEncoder: () => this.#shared.speechEncoder() });
    } catch (error) {
      // A typed error of the engine's (e.g. a ModelFilesError from a worker) is already what the client should see.
      if (error instanceof AppError && error.status === 503) throw error;
      // Its files passed the check, yet a library refused them: corrupt inside, most likely.
      throw new ModelUnavailableError(entry.id, (error as Error).message, `If its files are damaged, reinstall it: ${reinstall}`);
    }
  }
}

/** The transformers.js dtypes a model loads (its `dtype` option, defaults filled in), or undefined when it has none. */
function dtypesOf(options: unknown): string[] | undefined {
  const dtype = (options as { dtype?: unknown } | undefined)?.dtype;
  if (typeof dtype === 'string') return [dtype];
  if (dtype && typeof dtype === 'object') return Object.values(dtype).filter((one): one is string => typeof one === 'string');
  return undefined;
}
