/**
 * The multipart and raw body readers under mutated bodies: each read ends in a form or in one of
 * our 400/413 errors (never a parser's message, an uncaught error, or a read that never ends).
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppError } from '../../src/errors.js';
import { readMultipart, readRawBody } from '../../src/http/body-parsers.js';
import { fuzzRuns } from '../helpers/fuzz-runs.js';

const BOUNDARY = 'fuzzBoundary';
const LIMITS = { fileFields: ['file'] as const, maxFileBytes: 4_000, maxFields: 5, maxFieldBytes: 200 };

const validForm = Buffer.from(
  [
    `--${BOUNDARY}`,
    'Content-Disposition: form-data; name="model"',
    '',
    'whisper',
    `--${BOUNDARY}`,
    'Content-Disposition: form-data; name="file"; filename="a.wav"',
    'Content-Type: audio/wav',
    '',
    'RIFF....WAVEfmt audio-bytes',
    `--${BOUNDARY}--`,
    '',
  ].join('\r\n'),
);

type Outcome = { ok: true } | { ok: false; status: number; message: string; app: boolean };

describe('body readers under mutated bodies (property)', function () {
  this.timeout(5 * 60_000);
  let server: Server;
  let port: number;
  let read: (req: IncomingMessage) => Promise<unknown> = async () => undefined;
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => uncaught.push(error);

  before(async () => {
    process.on('uncaughtException', onUncaught);
    server = createServer(async (req, res) => {
      let outcome: Outcome;
      try {
        await read(req);
        outcome = { ok: true };
      } catch (error) {
        outcome = { ok: false, status: (error as AppError).status ?? 0, message: String((error as Error).message), app: error instanceof AppError };
      }
      res.setHeader('Connection', 'close');
      res.end(JSON.stringify(outcome));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => {
    process.off('uncaughtException', onUncaught);
    server.close();
  });

  /** Sends `body` with its Content-Length, or chunked (none declared) when `chunked`. */
  function send(body: Buffer, contentType: string, chunked = false): Promise<Outcome> {
    return new Promise((resolve, reject) => {
      const length = chunked ? {} : { 'Content-Length': body.length };
      const req = request({ port, method: 'POST', headers: { 'Content-Type': contentType, ...length } }, (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve(JSON.parse(text) as Outcome));
      });
      req.setTimeout(5_000, () => reject(new Error('no answer within 5 s')));
      req.on('error', reject);
      if (chunked) {
        // Two writes, so the body really arrives in more than one chunk.
        req.write(body.subarray(0, body.length >> 1));
        req.end(body.subarray(body.length >> 1));
      } else req.end(body);
    });
  }

  const mutated = fc
    .record({
      cut: fc.nat({ max: validForm.length }),
      flips: fc.array(fc.tuple(fc.nat({ max: validForm.length - 1 }), fc.integer({ min: 0, max: 255 })), { maxLength: 6 }),
      extra: fc.uint8Array({ maxLength: 300 }),
      repeat: fc.integer({ min: 1, max: 3 }),
    })
    .map(({ cut, flips, extra, repeat }) => {
      const bytes = Buffer.concat([...Array(repeat).fill(validForm), Buffer.from(extra)]);
      for (const [at, value] of flips) bytes[at] = value;
      return bytes.subarray(0, cut === validForm.length ? bytes.length : cut);
    });

  it('readMultipart: a form or our own 400/413', async () => {
    read = (req) => readMultipart(req, LIMITS);
    await fc.assert(
      fc.asyncProperty(
        mutated,
        fc.constantFrom(`multipart/form-data; boundary=${BOUNDARY}`, 'multipart/form-data', 'multipart/form-data; boundary='),
        async (body, type) => {
          const outcome = await send(body, type);
          if (!outcome.ok) {
            expect(outcome.app, outcome.message).to.equal(true);
            expect(outcome.status).to.be.oneOf([400, 413]);
          }
          expect(uncaught).to.deep.equal([]);
        },
      ),
      { numRuns: fuzzRuns(200) },
    );
  });

  it('readMultipart: the file part byte for byte, whether or not the body declares its length', async () => {
    let expected = Buffer.alloc(0);
    read = async (req) => {
      const form = await readMultipart(req, LIMITS);
      if (!form.file.bytes.equals(expected)) throw new Error(`file bytes differ: ${form.file.bytes.length} vs ${expected.length}`);
    };
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: LIMITS.maxFileBytes }), fc.boolean(), async (file, chunked) => {
        expected = Buffer.from(file);
        const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\n`;
        const body = Buffer.concat([Buffer.from(head), expected, Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]);
        const outcome = await send(body, `multipart/form-data; boundary=${BOUNDARY}`, chunked);
        expect(outcome, JSON.stringify(outcome)).to.deep.equal({ ok: true });
      }),
      { numRuns: fuzzRuns(100) },
    );
  });

  it('readRawBody: the bytes, or 413 past the limit', async () => {
    read = async (req) => {
      const bytes = await readRawBody(req, 1_000);
      if (bytes.length > 1_000) throw new Error('over the limit');
    };
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 3_000 }), async (bytes) => {
        const outcome = await send(Buffer.from(bytes), 'audio/wav');
        expect(outcome.ok || (outcome.app && outcome.status === 413), JSON.stringify(outcome)).to.equal(true);
        expect(outcome.ok).to.equal(bytes.length <= 1_000);
      }),
      { numRuns: fuzzRuns(100) },
    );
  });
});
