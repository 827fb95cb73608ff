/**
 * CPU used by this process (main thread and every worker thread). Tests use it to check that
 * cancelled model work really stopped: CPU time, unlike wall-clock time, does not depend on
 * how busy the shared test machine is.
 */
import { expect } from 'chai';

/** Cores busy over a window of `windowMs`: 1 means one core busy all the time. */
export async function coresBusyOver(windowMs: number): Promise<number> {
  const before = process.cpuUsage();
  const started = process.hrtime.bigint();
  await new Promise((resolve) => setTimeout(resolve, windowMs));
  const used = process.cpuUsage(before);
  const elapsedMicros = Number(process.hrtime.bigint() - started) / 1000;
  return (used.user + used.system) / elapsedMicros;
}

export interface SettleResult {
  /** CPU seconds this process spent from the call until it went idle (or the time-out). */
  cpuSeconds: number;
  /** Whether a window below `idleCores` was seen before `timeoutMs`. */
  settled: boolean;
}

/**
 * Waits until the process is idle (a `windowMs` window below `idleCores`) and reports the CPU
 * it spent meanwhile: the cost of whatever work was still running when this was called.
 */
export async function cpuUntilIdle(options: { idleCores?: number; windowMs?: number; timeoutMs?: number } = {}): Promise<SettleResult> {
  const { idleCores = 0.15, windowMs = 500, timeoutMs = 30_000 } = options;
  const before = process.cpuUsage();
  const deadline = Date.now() + timeoutMs;
  let settled = false;
  while (!settled && Date.now() < deadline) settled = (await coresBusyOver(windowMs)) < idleCores;
  const used = process.cpuUsage(before);
  return { cpuSeconds: (used.user + used.system) / 1e6, settled };
}

/**
 * Lets the calls start, then aborts each controller with a reason of its own, and checks that
 * every call rejected with exactly its reason within 5 s (so a call that ignored the abort,
 * or finished anyway, fails the test instead of hanging it).
 */
export async function abortEachAfter(startedMs: number, controllers: readonly AbortController[], outcomes: readonly Promise<unknown>[]): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, startedMs));
  const reasons = controllers.map((controller, index) => {
    const reason = new Error(`client ${index} went away`);
    controller.abort(reason);
    return reason;
  });
  const deadline = new Promise((resolve) => setTimeout(() => resolve('still running after 5 s'), 5_000).unref());
  for (const [index, outcome] of outcomes.entries()) expect(await Promise.race([outcome, deadline])).to.equal(reasons[index]);
}
