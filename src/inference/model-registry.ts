/**
 * Loads the manifest's models (model-catalog.ts knows which exist and whether they are
 * installed) lazily, once: concurrent first requests wait on the same load. It also owns what models of a task share (the speech encoder) and closes it with them.
 *
 * Lifecycle (docs/operations.md, "Model lifecycle"): a model idle for its time-out is unloaded (its workers
 * end); before a load that would pass the memory budget, and whenever a measurement raises the
 * count past it, the least recently used idle models are unloaded (lifecycle/memory-budget.ts); a
 * model with a call in flight (model-handle.ts counts them) is never unloaded.
 */
import { ConflictError, ModelMemoryExhaustedError, ModelNotInstalledError, ModelUnavailableError } from '../errors.js';
import type { ManifestEntry } from './manifest.js';
import { ModelCatalog, type ModelCatalogOptions, type ModelInfo } from './model-catalog.js';
import { filesSize } from './lifecycle/files-size.js';
import { footprintBytes, planEviction, type Footprint } from './lifecycle/memory-budget.js';
import { modelHandle } from './lifecycle/model-handle.js';
import { taskModel } from './task-models.js';
import { createSpeechEncoder, type SpeechEncoder } from './text-to-speech/speech-encoder.js';
import { LiveAudio } from './live-audio/live-audio.js';
import { vadModelFile } from './speech-to-text/silero-vad-engine.js';
import { DEFAULT_VAD_MODEL, VAD_INSTALL_COMMAND } from './speech-to-text/vad-request.js';
import { languageCandidates } from './translation/detect-language.js';
import type { Disposable, LanguageGuess, LiveAudioStream, ModelForTask, Task } from './types.js';

export type { ModelInfo, ModelState } from './model-catalog.js';

/** Why a model left memory. */
export type UnloadReason = 'idle' | 'memory' | 'admin';

export interface UnloadEvent {
  modelId: string;
  task: Task;
  reason: UnloadReason;
  /** What it counted against the budget. */
  memoryBytes: number;
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
  /** Bytes counted against the budget: `footprint`'s sum. */
  bytes: number;
  /** The estimate (an earlier residency's measures, else the files' size) until this one's are measured. */
  footprint: Footprint;
  /** Whether its first call has begun (the only one whose RSS growth is the warm-up's). */
  warmed: boolean;
}

/** A load attempt: once it is counted (with what it counts against the budget), or why it failed. */
export type LoadEvent = { modelId: string; task: Task; seconds: number } & ({ ok: true; memoryBytes: number } | { ok: false; error: string });

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
  readonly #modelsDir: string;
  readonly #residents = new Map<string, Resident>();
  /** Last use of each model, kept after it is unloaded (for GET /v1/models). */
  readonly #lastUsed = new Map<string, number>();
  /** What each model was measured to take (kept after unload: the estimate of its next load). */
  readonly #measured = new Map<string, Footprint>();
  /** Unloads the budget started on its own (close waits for them). */
  readonly #evicting = new Set<Promise<void>>();
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
    this.#catalog = new ModelCatalog(options);
    this.#createSpeechEncoder = options.createSpeechEncoder ?? createSpeechEncoder;
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
    return this.#catalog.list((id) => {
      const resident = this.#residents.get(id);
      const measured = this.#measured.get(id);
      const lastUsed = this.#lastUsed.get(id);
      if (!resident && measured === undefined && lastUsed === undefined) return undefined;
      return { state: resident?.state ?? 'unloaded', memoryBytes: resident?.bytes ?? (measured ? footprintBytes(measured) : null), lastUsed };
    });
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
    const id = await this.resolve(name, task);
    const model = await this.#acquire(id);
    return this.#handle(id, model) as ModelForTask[T];
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
    await Promise.allSettled([...loads.map(async (load) => (await load).dispose()), ...this.#evicting]);
    const encoder = this.#speechEncoder;
    this.#speechEncoder = undefined;
    await encoder?.dispose();
    const liveAudio = this.#liveAudio;
    this.#liveAudio = undefined;
    await liveAudio?.dispose();
  }

  /** The model `id` loaded (loading it first if needed), its last use now. */
  async #acquire(id: string): Promise<Disposable> {
    let resident = this.#residents.get(id);
    if (!resident) {
      const entry = this.#catalog.entry(id);
      const estimate = this.#measured.get(id) ?? { load: await this.#estimateBytes(entry, this.#catalog.context(entry).modelDir), warmup: 0 };
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
  #startLoad(entry: ManifestEntry, estimate: Footprint): Resident {
    const bytes = footprintBytes(estimate);
    const victims = this.#makeRoom(entry.id, bytes);
    const resident: Resident = { entry, state: 'loading', model: undefined, ready: undefined!, busy: 0, lastUsed: this.#now(), bytes, footprint: estimate, warmed: false };
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
    const { victims, used, fits } = planEviction(this.#residents.values(), budget, bytes);
    if (!fits) throw new ModelMemoryExhaustedError(id, bytes, budget, used);
    for (const victim of victims) this.#residents.delete(victim.entry.id);
    return victims;
  }

  /**
   * Counts `resident` at `footprint` from now on and for its next load, and holds the budget:
   * a measurement is often well above the estimate the load was admitted on.
   */
  #recount(resident: Resident, footprint: Footprint): void {
    resident.footprint = footprint;
    resident.bytes = footprintBytes(footprint);
    this.#measured.set(resident.entry.id, footprint);
    this.#holdBudget();
  }

  /**
   * Unloads idle models, least recently used first, until the count fits the budget. A model still
   * loading is spared (its caller waits for it), as is one answering; if those alone pass the
   * budget, #makeRoom refuses every load until they are done, and each call's end tries again. A
   * model that has just answered is idle: it goes too if the others are busy, rather than leave the
   * budget passed for as long as they run.
   */
  #holdBudget(): void {
    const budget = this.#maxMemoryBytes;
    if (budget === undefined) return;
    for (const victim of planEviction(this.#residents.values(), budget).victims) {
      // Leaves the count now (#unload's first step), so the next plan does not pick it again.
      const unloading = this.#unload(victim, 'memory').catch(() => {});
      this.#evicting.add(unloading);
      void unloading.finally(() => this.#evicting.delete(unloading));
    }
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
    const event = { modelId: resident.entry.id, task: resident.entry.task, reason, memoryBytes: resident.bytes };
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
          // Only the first: a later call finds the arenas grown and would count the warm-up as 0.
          const alone = this.#rss !== null && !resident.warmed && this.#callsRunning === 0 && this.#loadsRunning === 0;
          resident.warmed = true;
          const before = alone ? this.#rss!() : undefined;
          this.#callsRunning++;
          if (this.#loadsRunning > 0) this.#loadsOverlapped = true;
          const started = ++this.#activity;
          return () => {
            resident.busy--;
            this.#callsRunning--;
            this.#touch(resident);
            if (before !== undefined && this.#activity === started) {
              // A first call's growth depends on its input (a short text grows the arenas less), so
              // the largest seen, which an earlier residency's estimate already counted, stays.
              const warmup = Math.max(resident.footprint.warmup, this.#rss!() - before);
              this.#recount(resident, { load: resident.footprint.load, warmup });
            } else {
              // A busy model that kept the budget passed may be idle now.
              this.#holdBudget();
            }
          };
        },
      });
      this.#handles.set(id, handle);
    }
    return handle;
  }

  /**
   * The load, timed, and the RSS it added when no other load ran at the same time (then it is the
   * model's own); load listeners hear of it once it is counted.
   */
  async #measuredLoad(resident: Resident): Promise<Disposable> {
    const started = performance.now();
    const before = this.#rss?.();
    this.#activity++;
    if (this.#loadsRunning++ > 0 || this.#callsRunning > 0) this.#loadsOverlapped = true;
    let model: Disposable;
    try {
      model = await this.#load(resident.entry);
    } catch (error) {
      this.#reportLoad(resident, started, error as Error);
      throw error;
    } finally {
      this.#loadsRunning--;
    }
    // Loads and calls at the same time grow the one process RSS together, and its growth cannot be
    // split among them: an overlapped load keeps counting its estimate (its last measure, else its
    // files' size, which is often low) rather than a share that may belong to another model.
    if (before !== undefined && this.#rss && !this.#loadsOverlapped) {
      // The warm-up of an earlier residency stays counted until this one's first call measures it.
      this.#recount(resident, { load: Math.max(0, this.#rss() - before), warmup: resident.footprint.warmup });
    }
    if (this.#loadsRunning === 0) this.#loadsOverlapped = false;
    this.#reportLoad(resident, started);
    return model;
  }

  #reportLoad(resident: Resident, started: number, error?: Error): void {
    const { id: modelId, task } = resident.entry;
    const seconds = (performance.now() - started) / 1000;
    const event: LoadEvent = error ? { modelId, task, seconds, ok: false, error: error.message } : { modelId, task, seconds, ok: true, memoryBytes: resident.bytes };
    for (const listener of this.#loadListeners) listener(event);
  }

  async #load(entry: ManifestEntry): Promise<Disposable> {
    if (!(await this.#catalog.isInstalled(entry))) {
      throw new ModelNotInstalledError(entry.id, this.#catalog.installCommand(entry));
    }
    try {
      const model = await this.#catalog.engineFor(entry).load(entry, this.#catalog.context(entry));
      return taskModel(entry.task, model, entry.id, { speechEncoder: () => (this.#speechEncoder ??= this.#createSpeechEncoder()) });
    } catch (error) {
      throw new ModelUnavailableError(entry.id, (error as Error).message);
    }
  }
}
