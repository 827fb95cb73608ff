/**
 * Text from a hub, a mirror, an archive or a file name reaches the user's terminal through
 * `download-models`' messages: terminal escape sequences in it could recolour, rewrite or hide
 * lines, retitle the window or (on some terminals) answer back as typed input. Every line the
 * command writes goes through `terminalSafe`, which drops escape sequences and control
 * characters (keeping newlines and tabs) and the Unicode bidirectional overrides that reorder
 * what is shown; the progress bar's own in-place redraw (`\r … ESC[K`) is the one exception.
 */
import type { ProgressStream } from './progress-bar.js';

// ESC [ … final byte (CSI), ESC ] … BEL or ESC \ (OSC), ESC P/X/^/_ … ESC \ (DCS, SOS, PM, APC), or ESC + one byte.
// biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what it removes
const ESCAPE_SEQUENCE = /\u001b(?:\[[0-?]*[ -/]*[@-~]?|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[PX^_][^\u001b]*(?:\u001b\\)?|[\s\S]?)|\u009b[0-?]*[ -/]*[@-~]?/g;
// C0 but tab and newline, DEL, C1; the bidi marks, embeddings, overrides and isolates.
const CONTROL = /(?![\t\n])[\p{Cc}\p{Bidi_Control}]/gu;

export function stripControls(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, '').replace(CONTROL, '');
}

/** One line for `error: …`: control characters gone and a multi-line message folded. */
export function oneLine(text: string): string {
  return stripControls(text)
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}

/** The progress bar's redraw on a terminal: carriage return, the line, erase to its end. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: it matches the progress bar's own escape
const REDRAW = /^\r([^\r]*)\u001b\[K$/;

/** `stream` with every chunk cleaned: all `download-models` writes, to stdout and stderr. */
export function terminalSafe(stream: ProgressStream): ProgressStream {
  return {
    ...(stream.isTTY === undefined ? {} : { isTTY: stream.isTTY }),
    write: (chunk: string) => {
      const redraw = REDRAW.exec(chunk);
      return stream.write(redraw ? `\r${stripControls(redraw[1] as string)}\u001b[K` : stripControls(chunk));
    },
  };
}
