/**
 * Server-sent events (the WHATWG `text/event-stream` format) read from a response body: each
 * event's `data:` lines joined, parsed as JSON. The server sends one `data:` line per event;
 * comments, `event:`/`id:`/`retry:` fields and CRLF line ends are handled as the format allows.
 */

/** Yields each event's data, parsed. Reading stops (and the body is released) when the consumer stops. */
export async function* jsonEvents<T>(body: ReadableStream<Uint8Array>): AsyncGenerator<T> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  let data: string[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffered += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let end: number;
      while ((end = lineEnd(buffered)) >= 0) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + (buffered[end] === '\r' && buffered[end + 1] === '\n' ? 2 : 1));
        if (line === '') {
          if (data.length > 0) yield JSON.parse(data.join('\n')) as T;
          data = [];
        } else if (line.startsWith('data:')) {
          data.push(line.slice(line[5] === ' ' ? 6 : 5));
        }
      }
      if (done) break;
    }
    // A last event without its blank line is dispatched only if complete (the format drops it).
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => {});
  }
}

/** Index of the first CR or LF; a CR at the very end waits for the next chunk (it may be CRLF). */
function lineEnd(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '\n') return i;
    if (char === '\r') return i + 1 < text.length ? i : -1;
  }
  return -1;
}
