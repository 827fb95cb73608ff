/**
 * A catalogue entry's hub source made exact before anything is downloaded. A fully pinned source
 * (a commit, every file's sha256 and size) is taken as it is, without asking the hub. Otherwise
 * the hub says what the manifest does not: the commit a tag or branch names now (revision API),
 * and each file's SHA-256 and size at that commit (tree API; LFS metadata for the weights, the
 * git blob id for small files kept in git). What the manifest does pin must agree with the hub.
 */
import { isCommit, isFullyPinned, type HuggingFaceSource } from '../manifest.js';
import { isWeightFile, publishedFile, readRevision, readTree, refuseUnverifiableWeights, type CheckedFile } from './hub-api.js';
import type { HubClient } from './hub-client.js';
import { InstallError } from './install-errors.js';

export interface ResolvedHubSource {
  repo: string;
  /** As the manifest names it. */
  revision: string;
  /** What the files are downloaded from. */
  commit: string;
  files: CheckedFile[];
}

export async function resolveHubSource(hub: HubClient, source: HuggingFaceSource): Promise<ResolvedHubSource> {
  const { repo, revision } = source;
  if (isFullyPinned(source)) return { repo, revision, commit: revision, files: source.files };
  const commit = isCommit(revision) ? revision : (await readRevision(hub, repo, revision)).commit;
  // Every file pinned, only the tag to resolve (piper-voices v1.0.0): the tree has nothing to add.
  if (source.files.every((file) => file.sha256 !== undefined && file.size !== undefined)) return { repo, revision, commit, files: source.files };
  const tree = await readTree(hub, repo, commit);
  const files = source.files.map((file) => {
    const item = tree.get(file.path);
    if (!item) throw new InstallError(`${repo}@${commit.slice(0, 10)} has no file ${file.path}`);
    const published = publishedFile(item);
    if (file.sha256 !== undefined && published.sha256 !== undefined && file.sha256 !== published.sha256) {
      throw new InstallError(`${repo}@${commit.slice(0, 10)}: ${file.path} is pinned as sha256 ${file.sha256}, the hub publishes ${published.sha256}`);
    }
    if (file.size !== undefined && published.size !== undefined && file.size !== published.size) {
      throw new InstallError(`${repo}@${commit.slice(0, 10)}: ${file.path} is pinned as ${file.size} bytes, the hub publishes ${published.size}`);
    }
    const sha256 = file.sha256 ?? published.sha256;
    return {
      ...file,
      ...(sha256 ? { sha256 } : published.gitOid ? { gitOid: published.gitOid } : {}),
      ...(published.size !== undefined ? { size: file.size ?? published.size } : {}),
    };
  });
  refuseUnverifiableWeights(
    repo,
    files.filter((file) => isWeightFile(file.path)),
  );
  return { repo, revision, commit, files };
}
