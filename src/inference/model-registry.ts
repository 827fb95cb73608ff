/**
 * Knows every model in the manifest, whether it is installed, and loads each one lazily,
 * once: concurrent first requests wait on the same load. Every manifest entry is checked when
 * the registry is built (engine, task, options), so a bad manifest stops the server at start-up.
 * It also owns what models of a task share (the speech encoder) and closes it with them.
 */
import { join } from 'node:path';
import {
  ModelNotInstalledError,
  ModelUnavailableError,
  UnknownModelError,
  WrongModelTaskError,
} from '../errors.js';
import { hasInstallMarker, type Engine, type EngineContext } from './engine.js';
import { NO_OPTIONS } from './engine-options.js';
import { ManifestError, type AliasEntry, type Manifest, type ManifestEntry } from './manifest.js';
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
  [extra: string]: unknown;
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
}

export class ModelRegistry {
  readonly #entries: ReadonlyMap<string, ManifestEntry>;
  readonly #aliases: ReadonlyMap<string, AliasEntry>;
  readonly #modelsDir: string;
  readonly #engines: Readonly<Record<string, Engine>>;
  readonly #loads = new Map<string, Promise<Disposable>>();
  readonly #loaded = new Set<string>();
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
    const entry = this.#entries.get(id)!;

    let load = this.#loads.get(id);
    if (!load) {
      load = this.#timedLoad(entry);
      this.#loads.set(id, load);
      // A failed load is forgotten so that installing the model fixes it without a restart.
      load.then(
        () => this.#loaded.add(id),
        () => this.#loads.delete(id),
      );
    }
    return (await load) as ModelForTask[T];
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
    const loads = [...this.#loads.values()];
    this.#loads.clear();
    this.#loaded.clear();
    await Promise.allSettled(loads.map(async (load) => (await load).dispose()));
    const encoder = this.#speechEncoder;
    this.#speechEncoder = undefined;
    await encoder?.dispose();
    const liveAudio = this.#liveAudio;
    this.#liveAudio = undefined;
    await liveAudio?.dispose();
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
      alias_of: target ?? null,
    };
  }

  async #info(entry: ManifestEntry): Promise<ModelInfo> {
    const engine = this.#engineFor(entry);
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
      loaded: this.#loaded.has(entry.id),
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
