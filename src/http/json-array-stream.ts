/**
 * A JSON answer around one long array, written a slice of the array at a time with a turn of the
 * event loop between slices. 2048 embeddings as numbers are 16 MB of JSON, a long stall of
 * JSON.stringify in one go (docs/benchmarks.md, "Embeddings"): other requests (a health probe, a
 * one-text embedding) would wait for all of it. A slice of 64 is a small part of that.
 */
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';

const SLICE = 64;

/**
 * `before` + the items, each as `shape` makes it, as a JSON array + `after`: `before` ends where
 * the array starts (`{"data":`), `after` carries the rest of the object. Each item is shaped and
 * serialised when its slice is written, so the whole text is never held at once.
 */
export function jsonArrayStream<T>(before: string, items: readonly T[], shape: (item: T, index: number) => unknown, after: string): Readable {
  async function* pieces(): AsyncGenerator<string> {
    for (let start = 0; start < items.length; start += SLICE) {
      if (start > 0) await nextTurn();
      const slice = items.slice(start, start + SLICE).map((item, offset) => JSON.stringify(shape(item, start + offset)));
      yield `${start === 0 ? `${before}[` : ','}${slice.join(',')}`;
    }
    yield `${items.length === 0 ? `${before}[` : ''}]${after}`;
  }
  return Readable.from(pieces(), { objectMode: false });
}
