/**
 * A download progress bar for stderr. Formatting is pure (`formatProgress`); `ProgressBar`
 * only decides when to write: on a TTY it redraws one line in place (throttled), otherwise
 * (CI logs, pipes) it prints a plain line now and then so logs stay readable.
 */

interface ProgressState {
  label: string;
  doneBytes: number;
  /** Unknown when neither the manifest nor the server gives a length. */
  totalBytes?: number;
  /** Bytes that were already on disk when this attempt started (a resumed download). */
  resumedBytes: number;
  elapsedMs: number;
}

export interface ProgressStream {
  isTTY?: boolean;
  write(chunk: string): unknown;
}

const UNITS = ['B', 'kB', 'MB', 'GB', 'TB'];
const BAR_WIDTH = 24;
const TTY_REDRAW_MS = 100;
const PLAIN_LINE_MS = 5_000;

export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < UNITS.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${UNITS[unit]}`;
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const whole = Math.max(0, Math.round(seconds));
  if (whole < 60) return `${whole}s`;
  if (whole < 3600) return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, '0')}s`;
  return `${Math.floor(whole / 3600)}h${String(Math.floor((whole % 3600) / 60)).padStart(2, '0')}m`;
}

/** One line: `[#####-----]  45%  12.3 MB / 27.4 MB  3.1 MB/s  ETA 5s  label`. */
export function formatProgress(state: ProgressState): string {
  // The rate counts only this attempt's bytes, so a resumed download does not look instant.
  const seconds = state.elapsedMs / 1000;
  const rate = seconds > 0 ? (state.doneBytes - state.resumedBytes) / seconds : 0;
  const rateText = `${formatBytes(Math.round(rate))}/s`;
  if (state.totalBytes === undefined || state.totalBytes <= 0) {
    return `${formatBytes(state.doneBytes)}  ${rateText}  ${state.label}`;
  }
  const fraction = Math.min(1, state.doneBytes / state.totalBytes);
  const filled = Math.round(fraction * BAR_WIDTH);
  const bar = `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}]`;
  const percent = `${Math.floor(fraction * 100)}%`.padStart(4);
  const eta = rate > 0 ? formatDuration((state.totalBytes - state.doneBytes) / rate) : '?';
  return `${bar} ${percent}  ${formatBytes(state.doneBytes)} / ${formatBytes(state.totalBytes)}  ${rateText}  ETA ${eta}  ${state.label}`;
}

export class ProgressBar {
  readonly #stream: ProgressStream;
  readonly #now: () => number;
  readonly #label: string;
  readonly #startedAt: number;
  #total: number | undefined;
  #resumed = 0;
  #done = 0;
  #lastWrite = Number.NEGATIVE_INFINITY;

  constructor(stream: ProgressStream, label: string, options: { now?: () => number } = {}) {
    this.#stream = stream;
    this.#now = options.now ?? Date.now;
    this.#label = label;
    this.#startedAt = this.#now();
  }

  /** Called once the server answered: how much is already on disk and how much there is. */
  start(resumedBytes: number, totalBytes: number | undefined): void {
    this.#resumed = resumedBytes;
    this.#done = resumedBytes;
    this.#total = totalBytes;
    if (!this.#stream.isTTY) {
      const from = resumedBytes > 0 ? ` (resuming at ${formatBytes(resumedBytes)})` : '';
      const size = totalBytes !== undefined ? `, ${formatBytes(totalBytes)}` : '';
      this.#stream.write(`downloading ${this.#label}${size}${from}\n`);
      this.#lastWrite = this.#now();
    }
  }

  update(doneBytes: number): void {
    this.#done = doneBytes;
    const now = this.#now();
    const interval = this.#stream.isTTY ? TTY_REDRAW_MS : PLAIN_LINE_MS;
    if (now - this.#lastWrite < interval) return;
    this.#lastWrite = now;
    this.#draw(now);
  }

  finish(): void {
    const now = this.#now();
    this.#draw(now);
    if (this.#stream.isTTY) this.#stream.write('\n');
  }

  #draw(now: number): void {
    const line = formatProgress({
      label: this.#label,
      doneBytes: this.#done,
      totalBytes: this.#total,
      resumedBytes: this.#resumed,
      elapsedMs: now - this.#startedAt,
    });
    // \r + "erase to end of line" redraws in place on a terminal.
    this.#stream.write(this.#stream.isTTY ? `\r${line}\x1b[K` : `${line}\n`);
  }
}
