/**
 * The machine's load average, printed beside every figure: the machine is shared, so a figure
 * means little without the load it was measured under.
 */
import { loadavg } from 'node:os';

/** The 1, 5 and 15 minute load averages, as /proc/loadavg shows them: "0.52 0.61 0.70". */
export function loadAverage(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
}
