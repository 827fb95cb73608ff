/**
 * Size and sha256 checks of installed files. A file that fails is deleted so that the next
 * run fetches it again instead of trusting it.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm, stat, statfs } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type { CheckedFile } from './hub-api.js';
import { InstallError, IntegrityError } from './install-errors.js';

export interface VerifiedFile {
  sha256: string;
  size: number;
}

/**
 * The file's SHA-256, its MD5 when a manifest pins one (piper-voices publishes only MD5), and its
 * git blob id (SHA-1 of `blob <size>\0<bytes>`) when asked for, in one read.
 */
async function hashFile(path: string, size: number, want: { md5: boolean; gitOid: boolean }): Promise<{ sha256: string; md5?: string; gitOid?: string }> {
  const sha256 = createHash('sha256');
  const md5 = want.md5 ? createHash('md5') : undefined;
  const blob = want.gitOid ? createHash('sha1').update(`blob ${size}\0`) : undefined;
  await pipeline(createReadStream(path), async (chunks: AsyncIterable<Buffer>) => {
    for await (const chunk of chunks) {
      sha256.update(chunk);
      md5?.update(chunk);
      blob?.update(chunk);
    }
  });
  return {
    sha256: sha256.digest('hex'),
    ...(md5 ? { md5: md5.digest('hex') } : {}),
    ...(blob ? { gitOid: blob.digest('hex') } : {}),
  };
}

/**
 * Checks `path` against the expected size, sha256 and md5 (each when given) or, for a file the hub
 * keeps in git and nothing pins, its git blob id; returns the size and the SHA-256 computed.
 */
export async function verifyFile(path: string, expected: CheckedFile, label: string): Promise<VerifiedFile> {
  const { size } = await stat(path);
  if (expected.size !== undefined && size !== expected.size) {
    await rm(path, { force: true });
    throw new IntegrityError(`size mismatch for ${label}: expected ${expected.size} bytes, got ${size}; the file was deleted, run again to fetch it anew`);
  }
  const checkBlob = expected.sha256 === undefined && expected.gitOid !== undefined;
  const { sha256, md5, gitOid } = await hashFile(path, size, { md5: expected.md5 !== undefined, gitOid: checkBlob });
  for (const [name, expectedBy, want, got] of [
    ['sha256', 'expected', expected.sha256, sha256],
    ['md5', 'expected', expected.md5, md5],
    // Nothing of ours pins it: the hub's tree is the only word on this file.
    ['git blob id', 'the hub publishes', checkBlob ? expected.gitOid : undefined, gitOid],
  ] as const) {
    if (want === undefined || got === want) continue;
    await rm(path, { force: true });
    throw new IntegrityError(
      `${name} mismatch for ${label}: ${expectedBy} ${want}, got ${got}; the file was deleted, ` +
        'run again to fetch it anew (if it keeps failing, the manifest or the source is wrong)',
    );
  }
  return { sha256, size };
}

/** The size of a file, or 0 when it does not exist (yet): how much of a `.part` download is there. */
export async function fileSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

/** Bytes available to this user on the file system holding `dir`. */
export async function freeBytes(dir: string): Promise<number> {
  const stats = await statfs(dir);
  return stats.bavail * stats.bsize;
}

/**
 * Fails before downloading when the files the manifest sizes cannot fit: better than a disk
 * full half-way through a 900 MB model. Files without a size are not counted.
 */
export async function checkFreeSpace(dir: string, neededBytes: number, label: string, free = freeBytes): Promise<void> {
  if (neededBytes <= 0) return;
  const available = await free(dir);
  if (available < neededBytes) {
    const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
    throw new InstallError(`not enough disk space for ${label} in ${dir}: needs ${mb(neededBytes)}, ${mb(available)} free`);
  }
}
