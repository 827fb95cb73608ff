/**
 * Size and sha256 checks of installed files. A file that fails is deleted so that the next
 * run fetches it again instead of trusting it.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type { SourceFile } from '../manifest.js';
import { IntegrityError } from './install-errors.js';

export interface VerifiedFile {
  sha256: string;
  size: number;
}

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

/** Checks `path` against the manifest's size and sha256 (when given) and returns both. */
export async function verifyFile(path: string, expected: SourceFile, label: string): Promise<VerifiedFile> {
  const { size } = await stat(path);
  if (expected.size !== undefined && size !== expected.size) {
    await rm(path, { force: true });
    throw new IntegrityError(
      `size mismatch for ${label}: expected ${expected.size} bytes, got ${size}; the file was deleted, run again to fetch it anew`,
    );
  }
  const sha256 = await sha256File(path);
  if (expected.sha256 !== undefined && sha256 !== expected.sha256) {
    await rm(path, { force: true });
    throw new IntegrityError(
      `sha256 mismatch for ${label}: expected ${expected.sha256}, got ${sha256}; the file was deleted, ` +
        'run again to fetch it anew (if it keeps failing, the manifest or the source is wrong)',
    );
  }
  return { sha256, size };
}
