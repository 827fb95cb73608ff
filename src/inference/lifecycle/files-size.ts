/**
 * What a model's files take on disk: the estimate of its memory before its first load in this
 * process (afterwards the load's measured RSS growth is used, see memory-meter.ts).
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** Bytes of every file under `dir` (symbolic links followed); 0 when it does not exist. */
export async function filesSize(dir: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  const sizes = await Promise.all(
    names.map(async (name) => {
      const path = join(dir, name);
      const info = await stat(path).catch(() => undefined);
      if (!info) return 0;
      return info.isDirectory() ? filesSize(path) : info.size;
    }),
  );
  return sizes.reduce((sum, size) => sum + size, 0);
}
