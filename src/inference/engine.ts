import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type { TObject, Static } from '@sinclair/typebox';
import { engineOptions, type EngineOptions, type OptionsRule } from './engine-options.js';
import type { LogLevel } from '../config/load-config.js';
import type { ManifestEntry } from './manifest.js';
import type { EngineModelForTask, Task } from './types.js';

/** Written by download-models (and test-models) as the last step of an atomic install. */
export const INSTALL_MARKER = '.installed.json';

export interface EngineContext {
  /** The folder this model is installed in: `<MODELS_DIR>/<id>`. */
  modelDir: string;
  modelsDir: string;
  /** LOG_LEVEL, for a worker that logs on its own (the ASR worker's decoder paths); absent: info. */
  logLevel?: LogLevel;
}

/**
 * How one engine turns a manifest entry into a loaded model. Engines are data in the
 * `ENGINES` table (src/inference/engines.ts); the registry never switches on engine names.
 */
export interface Engine<T extends Task = Task> {
  /** Tasks this engine serves; the registry refuses a manifest entry of any other task. */
  readonly tasks: readonly T[];
  /** The manifest `options` it accepts, checked for every entry at start-up; absent: none. */
  readonly options?: EngineOptions<unknown>;
  /** Defaults to "the install marker exists in the model folder". */
  isInstalled?(entry: ManifestEntry, context: EngineContext): Promise<boolean>;
  /** Command that installs the model, shown in 503 answers. */
  installCommand?(entry: ManifestEntry): string;
  /**
   * The folder whose files the model loads, checked before it loads (model-folder-check.ts);
   * defaults to `context.modelDir`; undefined: none (e.g. system packages).
   */
  filesDir?(entry: ManifestEntry, context: EngineContext): string | undefined;
  load(entry: ManifestEntry, context: EngineContext): Promise<EngineModelForTask[T]>;
  /** Extra facts for GET /v1/models (e.g. labels, languages), computed without loading. */
  describe?(entry: ManifestEntry): Record<string, unknown>;
}

/** An engine written against its typed options; `defineEngine` reads and checks them. */
interface EngineDefinition<T extends Task, S extends TObject> {
  tasks: readonly T[];
  /** TypeBox schema of `options`; properties with a `default` arrive filled in. */
  options: S;
  /** Cross-field rules the schema cannot express. */
  rule?: OptionsRule<Static<S>>;
  isInstalled?(entry: ManifestEntry, context: EngineContext, options: Static<S>): Promise<boolean>;
  installCommand?(entry: ManifestEntry, options: Static<S>): string;
  filesDir?(entry: ManifestEntry, context: EngineContext, options: Static<S>): string | undefined;
  load(entry: ManifestEntry, context: EngineContext, options: Static<S>): Promise<EngineModelForTask[T]>;
  describe?(entry: ManifestEntry, options: Static<S>): Record<string, unknown>;
}

type TypedEngine<T extends Task, O> = Omit<Engine<T>, 'options'> & { readonly options: EngineOptions<O> };

export function defineEngine<T extends Task, S extends TObject>(definition: EngineDefinition<T, S>): TypedEngine<T, Static<S>> {
  const options = engineOptions(definition.options, definition.rule);
  const { isInstalled, installCommand, filesDir, describe } = definition;
  return {
    tasks: definition.tasks,
    options,
    load: async (entry, context) => definition.load(entry, context, options.read(entry)),
    ...(isInstalled ? { isInstalled: async (entry: ManifestEntry, context: EngineContext) => isInstalled(entry, context, options.read(entry)) } : {}),
    ...(installCommand ? { installCommand: (entry: ManifestEntry) => installCommand(entry, options.read(entry)) } : {}),
    ...(filesDir ? { filesDir: (entry: ManifestEntry, context: EngineContext) => filesDir(entry, context, options.read(entry)) } : {}),
    ...(describe ? { describe: (entry: ManifestEntry) => describe(entry, options.read(entry)) } : {}),
  };
}

export async function hasInstallMarker(modelDir: string): Promise<boolean> {
  try {
    await access(join(modelDir, INSTALL_MARKER));
    return true;
  } catch {
    return false;
  }
}
