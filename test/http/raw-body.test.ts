import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import { PayloadTooLargeError } from '../../src/errors.js';
import { readMultipart, readRawBody } from '../../src/http/body-parsers.js';

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

describe('readMultipart', () => {
  it('keeps a file part in a buffer of its own, grown as it arrives (movable to a worker without a copy)', async () => {
    const file = Buffer.alloc(70_000, 9);
    const boundary = 'b0undary';
    const form = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\n`),
      file,
      Buffer.from(`\r\n--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper\r\n--${boundary}--\r\n`),
    ]);
    const chunks = [form.subarray(0, 30_000), form.subarray(30_000)];
    const headers = { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(form.length) };
    const read = await readMultipart(body(chunks, headers) as unknown as IncomingMessage, {
      fileFields: ['file'] as const,
      maxFileBytes: 100_000,
      maxFields: 5,
      maxFieldBytes: 100,
    });
    expect(read.file.bytes.equals(file)).to.equal(true);
    expect(read.fields).to.deep.equal({ model: 'whisper' });
    expect(read.file.bytes.byteOffset).to.equal(0);
    expect(read.file.bytes.buffer.byteLength).to.equal(file.length);
  });
});
