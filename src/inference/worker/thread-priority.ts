/**
 * Lowers the scheduling priority of the calling thread only (Linux: nice applies per thread,
 * and /proc/thread-self names this thread's id). Workers doing long CPU-bound inference call it
 * so that, when cores are scarce, the HTTP event loop still gets the CPU within milliseconds;
 * on an idle machine the worker runs just as fast. Returns false where unsupported.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

export function lowerThreadPriority(nice: number): boolean {
  if (nice <= 0 || process.platform !== 'linux') return false;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    setPriority(tid, Math.min(19, nice));
    return true;
  } catch {
    // Containers may hide /proc or forbid it; running at normal priority is still correct.
    return false;
  }
}
