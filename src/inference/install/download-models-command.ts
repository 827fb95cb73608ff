/**
 * `npm run download-models [-- ids...] [--all] [--from <dir|tarball>] [--models-dir X]
 * [--hub-url URL] [--force] [--list]`. The script in scripts/ only calls `runDownloadModels`
 * with the process's argv, env and streams, so tests drive it in-process.
 */
import { rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../../config/load-config.js';
import { DTYPES, type Dtype } from '../dtype.js';
import { LOCAL_ENTRY_FILE, loadManifest } from '../local-entries.js';
import { isCommit, ManifestError, type Manifest, type ManifestEntry } from '../manifest.js';
import { DEFAULT_HUB_URL, HubClient, type HubClientOptions } from './hub-client.js';
import { copyFrom, idsPresentIn, modelRootIn, openImportSource, type ImportSource } from './import-source.js';
import { defaultId, entryForHubRepo, isHubRef, parseHubRef } from './hub-repo.js';
import { entryFromInstallRecord, isCurrentHubRepoInstall, resolveHubRepoEntry } from './hub-repo-entry.js';
import { HubSizes } from './hub-sizes.js';
import { HubUnreachableError, InstallError } from './install-errors.js';
import { listModels } from './list-models.js';
import { STAGING_DIR, installModel, isCurrentInstall, readInstallRecord, type FetchFile } from './install-model.js';
import { formatBytes, ProgressBar, type ProgressStream } from './progress-bar.js';

interface CommandIo {
  env: Record<string, string | undefined>;
  stdout: { write(chunk: string): unknown };
  stderr: ProgressStream;
  /** Tests shorten the timeouts. */
  hub?: Partial<Omit<HubClientOptions, 'hubUrl'>>;
  /** Tests simulate a full disk. */
  freeBytes?: (dir: string) => Promise<number>;
}

const USAGE = `Usage: npm run download-models -- [ids... | hf:<owner>/<repo>[@revision]...] [options]

Installs models listed in models/models.json into MODELS_DIR (default: models).
Without ids, installs every model marked "default": true. An hf: argument installs any
compatible hub repo (Whisper, Marian, M2M100/NLLB, BERT-family classifiers, sentence-
transformers encoders with ONNX weights) and adds it to the models the server serves.

Options:
  --all                  install every model that has a download source
  --from <dir|tarball>   install from local files instead of the hub (offline);
                         layout <dir>/<id>/<files>, or <dir>/<files> for one id;
                         .tar, .tar.gz and .tgz archives of either are accepted
  --models-dir <dir>     install there instead of MODELS_DIR
  --hub-url <url>        hub base URL (default: HF_ENDPOINT or ${DEFAULT_HUB_URL})
  --id <id>              model id of the one hf: repo (default: its name, lower-cased)
  --dtype <dtype>        ONNX weights of an hf: repo: ${DTYPES.join(', ')}
                         (default: q8 when the repo has them, else fp32)
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

export async function runDownloadModels(argv: readonly string[], io: CommandIo): Promise<number> {
  const say = (line: string) => io.stderr.write(`${line}\n`);
  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv);
  } catch (error) {
    say(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (args.values.help) {
    io.stdout.write(USAGE);
    return 0;
  }

  let manifest: Manifest;
  let modelsDir: string;
  try {
    const config = loadConfig(io.env);
    modelsDir = args.values['models-dir'] ?? config.modelsDir;
    manifest = await loadManifest(config.manifestPath, modelsDir);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof ManifestError) {
      say(`error: ${error.message}`);
      return 2;
    }
    throw error;
  }

  if (args.values.list) {
    // Sizes the catalogue lacks come from the hub's file tree, when it answers soon.
    const hub = new HubClient({ connectTimeoutMs: 5000, ...io.hub, hubUrl: args.values['hub-url'] ?? io.env.HF_ENDPOINT ?? DEFAULT_HUB_URL });
    await listModels(manifest, modelsDir, io.stdout, new HubSizes(hub));
    return 0;
  }

  const hubArgs = args.positionals.filter(isHubRef);
  const ids = args.positionals.filter((arg) => !isHubRef(arg));
  if (args.values.id !== undefined && hubArgs.length !== 1) {
    say('error: --id names the model of exactly one hf:<owner>/<repo> argument');
    return 2;
  }
  if (args.values.dtype !== undefined && !(DTYPES as readonly string[]).includes(args.values.dtype)) {
    say(`error: --dtype must be one of ${DTYPES.join(', ')}`);
    return 2;
  }
  const unknown = ids.filter((id) => !manifest.models.some((entry) => entry.id === id));
  if (unknown.length > 0) {
    say(`error: unknown model id ${unknown.join(', ')}. Known: ${manifest.models.map((entry) => entry.id).join(', ')}`);
    return 2;
  }

  let importSource: ImportSource | undefined;
  try {
    if (args.values.from !== undefined) {
      importSource = await openImportSource(args.values.from, join(modelsDir, STAGING_DIR));
    }
    const hub = new HubClient({ ...io.hub, hubUrl: args.values['hub-url'] ?? io.env.HF_ENDPOINT ?? DEFAULT_HUB_URL });
    const hubEntries: ManifestEntry[] = [];
    for (const arg of hubArgs) {
      if (importSource) throw new InstallError(`${arg}: hf: repos are installed from the hub, not --from`);
      const entry = await hubEntry(arg, manifest, hub, args.values.id, args.values.dtype as Dtype | undefined, say);
      const twin = hubEntries.find((other) => other.id === entry.id);
      if (twin) throw new InstallError(`${arg}: model id "${entry.id}" is also the id of hf:${twin.source?.repo}; install one of them with --id`);
      hubEntries.push(entry);
    }
    const entries =
      hubArgs.length > 0 && ids.length === 0 ? hubEntries : [...(await selectEntries(manifest, { ...args, positionals: ids }, importSource)), ...hubEntries];
    const local = new Set([...(manifest.localIds ?? []), ...hubEntries.map((entry) => entry.id)]);
    if (entries.length === 0) {
      say(
        importSource
          ? `error: no model folders found in ${importSource.origin}; name the model: npm run download-models -- --from <dir> <id>`
          : 'nothing to install: no model is marked "default" (pass ids or --all)',
      );
      return importSource ? 2 : 0;
    }
    const tally: Tally = { installed: 0, current: 0, skipped: 0, failed: 0 };
    for (const entry of entries) {
      const outcome = await installOne(entry, {
        modelsDir,
        hub,
        importSource,
        singleModel: entries.length === 1,
        force: args.values.force === true,
        writeEntry: local.has(entry.id),
        io,
      });
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
    say(`error: ${error.message}`);
    return 1;
  } finally {
    await importSource?.close();
    // Leave no empty staging folder behind; one still holding a partial download stays.
    await rmdir(join(modelsDir, STAGING_DIR)).catch(() => {});
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      all: { type: 'boolean' },
      from: { type: 'string' },
      'models-dir': { type: 'string' },
      'hub-url': { type: 'string' },
      force: { type: 'boolean' },
      id: { type: 'string' },
      dtype: { type: 'string' },
      list: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/**
 * The entry of an hf: argument. Its id may not be taken by another model: the shipped manifest's,
 * or one installed from another repo (reinstalling the same repo, e.g. another revision, is fine).
 */
async function hubEntry(arg: string, manifest: Manifest, hub: HubClient, id: string | undefined, dtype: Dtype | undefined, say: (line: string) => void) {
  const ref = parseHubRef(arg);
  const modelId = id ?? defaultId(ref);
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(modelId)) throw new InstallError(`${arg}: "${modelId}" is not a valid model id ([A-Za-z0-9._-]+); pass --id`);
  const taken = manifest.models.find((entry) => entry.id === modelId);
  if (taken && !(manifest.localIds?.includes(modelId) && taken.source?.repo === ref.repo)) {
    const by = manifest.localIds?.includes(modelId) ? `hf:${taken.source?.repo}` : 'a model of the shipped manifest';
    throw new InstallError(`${arg}: model id "${modelId}" is already taken by ${by}; pass --id <another id>`);
  }
  say(`${modelId}: reading ${ref.repo}@${ref.revision} from ${hub.hubUrl}`);
  return entryForHubRepo(hub, ref, { id: modelId, ...(dtype ? { dtype } : {}) });
}

async function selectEntries(manifest: Manifest, args: ReturnType<typeof parse>, importSource: ImportSource | undefined) {
  if (args.positionals.length > 0) {
    return args.positionals.map((id) => manifest.models.find((entry) => entry.id === id) as ManifestEntry);
  }
  if (args.values.all) return manifest.models.filter((entry) => entry.source || entry.hubRepo);
  if (importSource) {
    const present = new Set(await idsPresentIn(importSource.root, manifest.models));
    return manifest.models.filter((entry) => present.has(entry.id));
  }
  return manifest.models.filter((entry) => entry.default === true);
}

interface InstallContext {
  modelsDir: string;
  hub: HubClient;
  importSource: ImportSource | undefined;
  singleModel: boolean;
  force: boolean;
  /** A user-installed model: its manifest entry goes into its folder with its files. */
  writeEntry: boolean;
  io: CommandIo;
}

async function installOne(entry: ManifestEntry, context: InstallContext): Promise<keyof Tally | 'unreachable'> {
  const { io, modelsDir } = context;
  const say = (line: string) => io.stderr.write(`${line}\n`);
  if (entry.hubRepo && !entry.source) return installHubRepo(entry, context);
  const source = entry.source;
  if (!source) {
    const how = entry.installCommand ? `install it with: ${entry.installCommand}` : `engine "${entry.engine}" installs it outside the hub`;
    say(`skip ${entry.id}: no download source in the manifest; ${how}`);
    return 'skipped';
  }
  if (!context.force && isCurrentInstall(entry, await readInstallRecord(join(modelsDir, entry.id)))) {
    say(`${entry.id}: already installed (${source.repo}@${source.revision.slice(0, 10)}); --force reinstalls`);
    return 'current';
  }
  try {
    let fetchFile: FetchFile;
    if (context.importSource) {
      const root = await modelRootIn(context.importSource.root, entry, context.singleModel);
      say(`${entry.id}: importing from ${context.importSource.origin}`);
      fetchFile = copyFrom(root);
    } else {
      say(`${entry.id}: downloading ${source.repo}@${source.revision.slice(0, 10)} from ${context.hub.hubUrl} (${downloadSize(source.files)})`);
      fetchFile = (file, dest, label) =>
        context.hub.download(context.hub.fileUrl(source.repo, source.revision, file.path), dest, {
          expectedSize: file.size,
          progress: new ProgressBar(io.stderr, label),
        });
    }
    const record = await installModel(entry, {
      modelsDir,
      fetchFile,
      reuseStaged: !context.importSource,
      log: say,
      ...(io.freeBytes ? { freeBytes: io.freeBytes } : {}),
      ...(context.importSource ? { importedFrom: context.importSource.origin } : {}),
      ...(context.writeEntry ? { extraFiles: (files: Array<{ path: string; sha256: string }>) => ({ [LOCAL_ENTRY_FILE]: entryFileText(entry, files) }) } : {}),
    });
    const bytes = record.files.reduce((sum, file) => sum + file.size, 0);
    say(`${entry.id}: installed ${record.files.length} files (${formatBytes(bytes)}) in ${join(modelsDir, entry.id)}`);
    return 'installed';
  } catch (error) {
    if (error instanceof HubUnreachableError) {
      say(`error: ${error.message}`);
      return 'unreachable';
    }
    const message = error instanceof InstallError ? error.message : ((error as Error).stack ?? String(error));
    say(`error: ${entry.id}: ${message}`);
    return 'failed';
  }
}

/** A catalogue model given by hubRepo: its files are read from the hub's tree, then it installs like any other. */
async function installHubRepo(entry: ManifestEntry, context: InstallContext): Promise<keyof Tally | 'unreachable'> {
  const say = (line: string) => context.io.stderr.write(`${line}\n`);
  const { repo, revision } = entry.hubRepo as NonNullable<ManifestEntry['hubRepo']>;
  const record = await readInstallRecord(join(context.modelsDir, entry.id));
  if (!context.force && isCurrentHubRepoInstall(entry, record)) {
    say(`${entry.id}: already installed (${repo}@${record?.source.revision.slice(0, 10)}); --force reinstalls`);
    return 'current';
  }
  if (context.importSource) {
    // No public list pins its files: the copy must carry the record of the install that made it.
    const root = await modelRootIn(context.importSource.root, entry, context.singleModel).catch(() => undefined);
    const pinned = root && entryFromInstallRecord(entry, await readInstallRecord(root));
    if (pinned) return installOne(pinned, context);
    say(`error: ${entry.id}: its files are listed by the hub at install; copy the whole folder of an install (with its .installed.json) from ${repo}`);
    return 'failed';
  }
  try {
    say(`${entry.id}: reading ${repo}@${revision} from ${context.hub.hubUrl}`);
    const pinned = await resolveHubRepoEntry(context.hub, entry);
    if (!isCommit(revision)) say(`${entry.id}: the catalogue pins no commit of ${repo}; installing ${revision} = ${pinned.source?.revision}`);
    return await installOne(pinned, context);
  } catch (error) {
    if (error instanceof HubUnreachableError) {
      say(`error: ${error.message}`);
      return 'unreachable';
    }
    if (!(error instanceof InstallError)) throw error;
    say(`error: ${entry.id}: ${error.message}`);
    return 'failed';
  }
}

/** "3 files, 80.1 MB", said before a download starts; "at least" when some file has no size. */
function downloadSize(files: ReadonlyArray<{ size?: number }>): string {
  const bytes = files.reduce((sum, file) => sum + (file.size ?? 0), 0);
  const count = `${files.length} file${files.length === 1 ? '' : 's'}`;
  if (files.every((file) => file.size !== undefined)) return `${count}, ${formatBytes(bytes)}`;
  return bytes > 0 ? `${count}, at least ${formatBytes(bytes)}` : `${count}, size unknown`;
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
