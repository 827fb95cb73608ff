/**
 * Catalogue models given by `hubRepo` (no public source lists their files): the file list is
 * read from the hub's tree at install, exactly as `hf:<repo>@<revision>` reads it (weights for
 * the entry's dtype, each pinned by the SHA-256 the hub publishes), and the catalogue entry keeps
 * its id, options and facts.
 */
import type { Dtype } from '../dtype.js';
import { INSTALL_MARKER } from '../engine.js';
import { isCommit, ManifestError, parseManifest, type ManifestEntry } from '../manifest.js';
import type { HubClient } from './hub-client.js';
import { entryForHubRepo } from './hub-repo.js';
import { InstallError } from './install-errors.js';

/** The entry with a `source` pinned to the commit the hub resolved, ready for installModel. */
export async function resolveHubRepoEntry(hub: HubClient, entry: ManifestEntry): Promise<ManifestEntry> {
  const { hubRepo, ...rest } = entry;
  if (!hubRepo) throw new InstallError(`${entry.id} has no hubRepo`);
  const dtype = entry.options?.dtype as Dtype | undefined;
  const resolved = await entryForHubRepo(hub, hubRepo, { id: entry.id, ...(dtype ? { dtype } : {}) });
  if (resolved.task !== entry.task || resolved.engine !== entry.engine) {
    throw new InstallError(
      `${entry.id}: ${hubRepo.repo}@${hubRepo.revision} reads as a ${resolved.task} model (${resolved.engine}), not the catalogue's ${entry.task} (${entry.engine})`,
    );
  }
  return { ...rest, source: resolved.source as NonNullable<ManifestEntry['source']> };
}

/** What an install wrote in `.installed.json`: the repo, the commit and every file with its verified SHA-256. */
interface InstalledFiles {
  /** A string for installs of `npm run test-models` ("pypi:…"). */
  source?: string | { type?: string; repo?: string; revision?: string };
  files?: Array<{ path: string; sha256: string; size: number }>;
}

/**
 * The entry pinned to the files another machine installed (`--from` a copy of its folder): the
 * hub checked them there against its SHA-256; here each is checked against what that install
 * recorded. Undefined when the record is missing or of another repo or commit.
 */
export function entryFromInstallRecord(entry: ManifestEntry, record: InstalledFiles | undefined): ManifestEntry | undefined {
  const { hubRepo, ...rest } = entry;
  const revision = typeof record?.source === 'object' ? record.source.revision : undefined;
  if (!hubRepo || !record?.files?.length || !revision || !isCurrentHubRepoInstall(entry, record)) return undefined;
  const files = record.files.map(({ path, sha256, size }) => ({ path, sha256, size }));
  const pinned: ManifestEntry = { ...rest, source: { type: 'huggingface', repo: hubRepo.repo, revision, files } };
  // The record came with the copy: its paths and hashes get the manifest's checks (no `../`, hex digests) before any is used.
  try {
    parseManifest({ models: [pinned] }, `the ${INSTALL_MARKER} of the copy of ${entry.id}`);
  } catch (error) {
    if (error instanceof ManifestError) throw new InstallError(error.message);
    throw error;
  }
  return pinned;
}

/** An install of this repo is current when it came from the pinned commit, or from any commit when the catalogue pins none. */
export function isCurrentHubRepoInstall(entry: ManifestEntry, installed: Pick<InstalledFiles, 'source'> | undefined): boolean {
  const { hubRepo } = entry;
  const source = installed?.source;
  if (!hubRepo || typeof source !== 'object' || source.repo !== hubRepo.repo) return false;
  return isCommit(hubRepo.revision) ? source.revision === hubRepo.revision : true;
}
