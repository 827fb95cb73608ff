/**
 * One installer per model at a time: two `download-models` runs appending to the same `.part`
 * file would corrupt it. The lock is a file created with O_EXCL holding the owner's pid; a lock
 * whose process is gone (killed, crashed) is taken over.
 */
import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { InstallError } from './install-errors.js';

export async function withInstallLock<T>(lockPath: string, label: string, work: () => Promise<T>): Promise<T> {
  await mkdir(dirname(lockPath), { recursive: true });
  await acquire(lockPath, label);
  try {
    return await work();
  } finally {
    await rm(lockPath, { force: true });
  }
}

async function acquire(lockPath: string, label: string): Promise<void> {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const handle = await open(lockPath, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number((await readFile(lockPath, 'utf8').catch(() => '')).trim());
    if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) {
      throw new InstallError(`${label} is being installed by another download-models process (pid ${owner}); wait for it to finish`);
    }
    await rm(lockPath, { force: true }); // stale: its owner is gone
  }
  throw new InstallError(`${label}: could not take the install lock ${lockPath}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
