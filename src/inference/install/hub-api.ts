/**
 * What the hub publishes about a repo, read through its API: the commit a revision (branch, tag
 * or commit) stands for, and the file tree at a commit with each file's size and checksum. LFS
 * files (the weights) carry the SHA-256 of their bytes; files kept in git carry only their git
 * blob id, a SHA-1 of `blob <size>\0<bytes>`, which the installer checks as well.
 */
import { isCommit, type SourceFile } from '../manifest.js';
import type { HubClient } from './hub-client.js';
import { InstallError } from './install-errors.js';

export interface TreeEntry {
  type: string;
  path: string;
  size: number;
  /** The git object id: for a file in git, its blob SHA-1; for an LFS file, its pointer's. */
  oid?: string;
  lfs?: { oid: string; size: number };
}

export interface RevisionInfo {
  commit: string;
  license?: string;
}

/** A source file with the checks the hub publishes for it (see `publishedFile`). */
export interface CheckedFile extends SourceFile {
  /** Git blob id of a file kept in git (no SHA-256 published); checked when no sha256 is known. */
  gitOid?: string;
}

/** The commit `revision` names now (`GET /api/models/<repo>/revision/<revision>`). */
export async function readRevision(hub: HubClient, repo: string, revision: string): Promise<RevisionInfo> {
  const info = (await hub.json(`/api/models/${repo}/revision/${encodeURIComponent(revision)}`)) as { sha?: unknown; cardData?: { license?: unknown } };
  const commit = info?.sha;
  if (typeof commit !== 'string' || !isCommit(commit)) throw new InstallError(`${repo}@${revision}: the hub named no commit`);
  const license = info.cardData?.license;
  return { commit, ...(typeof license === 'string' ? { license } : {}) };
}

/** Every file of the repo at `commit`, by path (`GET /api/models/<repo>/tree/<commit>?recursive=true`, all pages). */
export async function readTree(hub: HubClient, repo: string, commit: string): Promise<Map<string, TreeEntry>> {
  const tree = (await hub.json(`/api/models/${repo}/tree/${commit}?recursive=true`)) as TreeEntry[];
  if (!Array.isArray(tree)) throw new InstallError(`${repo}: the hub's file tree is not a list`);
  return new Map(tree.filter((item) => item?.type === 'file' && typeof item.path === 'string').map((item) => [item.path, item]));
}

/** A tree entry as a source file: the LFS SHA-256 and size, or for a file in git its size and blob id. */
export function publishedFile(item: TreeEntry): CheckedFile {
  const sha256 = item.lfs?.oid;
  const size = item.lfs?.size ?? item.size;
  const lfs = typeof sha256 === 'string' && /^[0-9a-f]{64}$/.test(sha256);
  return {
    path: item.path,
    ...(lfs ? { sha256 } : {}),
    ...(Number.isSafeInteger(size) && size >= 0 ? { size } : {}),
    ...(!lfs && typeof item.oid === 'string' && /^[0-9a-f]{40}$/.test(item.oid) ? { gitOid: item.oid } : {}),
  };
}

/** The manifest's view of a tree entry (the blob id is checked at install, not kept in the entry). */
export function manifestFile(item: TreeEntry): SourceFile {
  const { gitOid: _checkedAtInstall, ...file } = publishedFile(item);
  return file;
}

/** ONNX graphs, their external data and binary tensors (Kokoro voices): what an attacker would swap, so never installed without a SHA-256. */
export function isWeightFile(path: string): boolean {
  return /\.(onnx(_data(_\d+)?)?|bin)$/.test(path);
}

/** Refuses weight files without a SHA-256: the hub keeps weights in LFS, which publishes it, so a missing one is a warning sign. */
export function refuseUnverifiableWeights(repo: string, weights: ReadonlyArray<{ path: string; sha256?: string }>): void {
  const unverifiable = weights.filter((file) => !file.sha256).map((file) => file.path);
  if (unverifiable.length > 0) {
    throw new InstallError(`${repo}: the hub publishes no SHA-256 (LFS) for ${unverifiable.join(', ')}; refusing weights that cannot be verified`);
  }
}
