import { Readable } from 'node:stream';
import { expect } from 'chai';
import { PayloadTooLargeError } from '../../src/errors.js';
import { readRawBody } from '../../src/http/body-parsers.js';

/** A request-like stream of `parts` with the given headers. */
function body(parts: Buffer[], headers: Record<string, unknown>): Readable & { headers: Record<string, unknown> } {
  return Object.assign(Readable.from(parts), { headers });
}

describe('readRawBody', () => {
  const parts = [Buffer.alloc(40_000, 1), Buffer.alloc(30_000, 2), Buffer.alloc(10, 3)];
  const whole = Buffer.concat(parts);

  it('reads a body with a Content-Length into one buffer of its own (movable to a worker without a copy)', async () => {
    const bytes = await readRawBody(body(parts, { 'content-length': String(whole.length) }), 100_000);
    expect(bytes.equals(whole)).to.equal(true);
    expect(bytes.byteOffset).to.equal(0);
    expect(bytes.buffer.byteLength).to.equal(whole.length);
  });

  it('reads a body without a Content-Length, or one that differs from it, whole', async () => {
    for (const length of [undefined, '10', String(whole.length + 5)]) {
      const bytes = await readRawBody(body(parts, length === undefined ? {} : { 'content-length': length }), 100_000);
      expect(bytes.equals(whole), `content-length ${length}`).to.equal(true);
    }
  });

  it('answers 413 for a declared or an actual length past the limit', async () => {
    const declared = await readRawBody(body(parts, { 'content-length': '100001' }), 100_000).catch((error: unknown) => error);
    expect(declared).to.be.instanceOf(PayloadTooLargeError);
    const actual = await readRawBody(body(parts, {}), 50_000).catch((error: unknown) => error);
    expect(actual).to.be.instanceOf(PayloadTooLargeError);
  });
});
