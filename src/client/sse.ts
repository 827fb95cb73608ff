/**
 * Server-sent events (the WHATWG `text/event-stream` format) read from a response body: each
 * event's `data:` lines joined, parsed as JSON. The server sends one `data:` line per event;
 * comments, `event:`/`id:`/`retry:` fields and CRLF line ends are handled as the format allows.
 */

/**
 * The longest event the reader holds. The server's largest, a whole transcript in
 * `transcript.text.done`, is about 30 kB for the 30-minute upload limit; a peer that never ends
 * an event must not grow the buffer without bound.
 */
const MAX_EVENT_CHARS = 4 * 1024 * 1024;

/** Yields each event's data, parsed. Reading stops (and the body is released) when the consumer stops. */
export async function* jsonEvents<T>(body: ReadableStream<Uint8Array>, maxEventChars = MAX_EVENT_CHARS): AsyncGenerator<T> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  let data: string[] = [];
  let held = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      // Only the new text can hold a line end (less a CR kept back), so a long line is scanned once.
      let from = Math.max(0, buffered.length - 1);
      buffered += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let end: number;
      while ((end = lineEnd(buffered, from)) >= 0) {
        from = 0;
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + (buffered[end] === '\r' && buffered[end + 1] === '\n' ? 2 : 1));
        if (line === '') {
          if (data.length > 0) yield JSON.parse(data.join('\n')) as T;
          data = [];
          held = 0;
        } else if (line.startsWith('data:')) {
          data.push(line.slice(line[5] === ' ' ? 6 : 5));
          held += line.length;
        }
      }
      if (held + buffered.length > maxEventChars) throw new Error(`an event is longer than ${maxEventChars} characters`);
      if (done) break;
    }
    // A last event without its blank line is dispatched only if complete (the format drops it).
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => {});
  }
}

/** Index of the first CR or LF at or after `from`; a CR at the very end waits for the next chunk (it may be CRLF). */
function lineEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const char = text[i];
    if (char === '\n') return i;
    if (char === '\r') return i + 1 < text.length ? i : -1;
  }
  return -1;
}
