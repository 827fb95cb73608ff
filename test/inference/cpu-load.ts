/**
 * CPU used by this process (main thread and every worker thread) over a window, in cores:
 * 1 means one core busy all the time. Tests use it to check that cancelled model work really
 * stopped, which wall-clock timings on a shared machine cannot show.
 */
export async function coresBusyOver(windowMs: number): Promise<number> {
  const before = process.cpuUsage();
  const started = process.hrtime.bigint();
  await new Promise((resolve) => setTimeout(resolve, windowMs));
  const used = process.cpuUsage(before);
  const elapsedMicros = Number(process.hrtime.bigint() - started) / 1000;
  return (used.user + used.system) / elapsedMicros;
}
