/**
 * Body parsing at the edge: each route declares which media types it takes, and over-limit,
 * malformed or mistyped bodies are rejected before a handler runs.
 */
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import type { Middleware } from 'koa';
import { koaBody } from 'koa-body';
import { PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '../errors.js';
import { strictFormDecoder } from './form-text.js';

const MiB = 1024 * 1024;

/** A size as the docs write limits: `1 MB`, `2.4 MB` (MiB), `16 KiB`, `900 bytes`. */
export function sizeText(bytes: number): string {
  if (bytes >= MiB) return `${Number((bytes / MiB).toFixed(1))} MB`;
  return bytes >= 1024 ? `${Number((bytes / 1024).toFixed(1))} KiB` : `${bytes} bytes`;
}

/** "the limit of 1 MB (the server's MAX_JSON_MB setting raises it)": every 413 says its limit, and what raises it when a setting does. */
export function limitText(limitBytes: number, setting?: string): string {
  return `the limit of ${sizeText(limitBytes)}${setting ? ` (the server's ${setting} setting raises it)` : ''}`;
}

/** "The body is 2.4 MB, over the limit of 1 MB …", or "larger than" when its size is not known. */
function bodyTooLarge(bytes: number | undefined, limitBytes: number, setting: string | undefined): PayloadTooLargeError {
  if (bytes === undefined || bytes <= limitBytes) return new PayloadTooLargeError(`The body is larger than ${limitText(limitBytes, setting)}`);
  // Rounded to the limit's own figure, "128 MB, over the limit of 128 MB" would say nothing.
  const size = sizeText(bytes) === sizeText(limitBytes) ? `${bytes} bytes` : sizeText(bytes);
  return new PayloadTooLargeError(`The body is ${size}, over ${limitText(limitBytes, setting)}`);
}

/**
 * koa-body's own 413 ("request entity too large", from raw-body) says no limit: it becomes ours.
 * `next` runs outside the parse, so a 413 from further down is not taken for the body's.
 */
function withBodyLimit(parse: Middleware, limitBytes: number, setting: string | undefined): Middleware {
  return async (ctx, next) => {
    try {
      await parse(ctx, async () => {});
    } catch (error) {
      const { type, length } = error as { type?: unknown; length?: unknown };
      if (type !== 'entity.too.large') throw error;
      throw bodyTooLarge(typeof length === 'number' ? length : undefined, limitBytes, setting);
    }
    await next();
  };
}

/** JSON only; 415 for any other Content-Type, 413 past `limitBytes` (naming `setting`, which raises it), 400 for malformed JSON. */
export function jsonBody(limitBytes: number, setting?: string): Middleware {
  const parse = withBodyLimit(koaBody({ json: true, jsonLimit: limitBytes, multipart: false, urlencoded: false, text: false }), limitBytes, setting);
  return async (ctx, next) => {
    if (!ctx.is('application/json')) {
      throw new UnsupportedMediaTypeError(`Content-Type must be application/json, got ${ctx.get('Content-Type') || 'none'}`);
    }
    await parse(ctx, next);
  };
}

/**
 * JSON or an url-encoded form (the LibreTranslate API takes both; form escapes that are not UTF-8
 * are a 400 naming the field, form-text.ts); 415 for anything else. No body
 * at all is an empty form, whatever its type: clients that send every value in the query string
 * (deep-translator) send no Content-Type.
 */
export function formOrJsonBody(limitBytes: number, setting?: string): Middleware {
  const parse = withBodyLimit(
    koaBody({
      json: true,
      urlencoded: true,
      jsonLimit: limitBytes,
      formLimit: limitBytes,
      multipart: false,
      text: false,
      queryString: { decoder: strictFormDecoder() },
    }),
    limitBytes,
    setting,
  );
  return async (ctx, next) => {
    const length = ctx.get('Content-Length');
    if (ctx.get('Transfer-Encoding') === '' && (length === '' || length === '0')) {
      ctx.request.body = {};
      return next();
    }
    if (!ctx.is('application/json', 'application/x-www-form-urlencoded')) {
      throw new UnsupportedMediaTypeError('Send the body as application/json or application/x-www-form-urlencoded');
    }
    await parse(ctx, next);
  };
}

export interface MultipartLimits {
  /** Names the one file part may have: `file` (the OpenAI form, named in messages), then aliases. */
  fileFields: readonly [string, ...string[]];
  maxFileBytes: number;
  /** The server setting that raises `maxFileBytes`, named in its 413. */
  maxFileSetting?: string;
  maxFields: number;
  maxFieldBytes: number;
  /** A field refused by its name alone, checked before its length (so its refusal is never a 413). */
  refuseField?: (name: string) => Error | undefined;
}

interface MultipartForm {
  file: { bytes: Buffer; contentType: string; filename: string };
  fields: Record<string, string>;
}

/**
 * Reads a multipart/form-data upload (the OpenAI SDK form: one file part and text fields)
 * into memory with busboy; nothing touches the disk, so nothing is left behind when a request
 * fails. A part is a file when it carries a filename (RFC 7578), with or without its own
 * Content-Type: Python `requests` sends none. Limits answer 413 as soon as they are passed.
 */
export function readMultipart(req: IncomingMessage, limits: MultipartLimits): Promise<MultipartForm> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: { files: 1, fileSize: limits.maxFileBytes, fields: limits.maxFields, fieldSize: limits.maxFieldBytes, parts: limits.maxFields + 1 },
      });
    } catch {
      reject(new ValidationError('multipart/form-data needs a boundary parameter in its Content-Type'));
      return;
    }
    const fields: Record<string, string> = {};
    const [fileField] = limits.fileFields;
    const isFileField = (name: string) => limits.fileFields.includes(name);
    let file: MultipartForm['file'] | undefined;
    let failed = false;
    const fail = (error: Error) => {
      if (failed) return;
      failed = true;
      req.unpipe(parser);
      reject(error);
    };

    parser.on('file', (name, stream, info) => {
      if (!isFileField(name)) {
        stream.on('error', () => {});
        stream.resume();
        fail(new ValidationError(`unexpected file part "${name}": send the audio in a part named "${fileField}"`, name));
        return;
      }
      // The file part is never longer than the whole body.
      const declared = declaredLength(req.headers);
      const collector = new ByteCollector(declared === undefined ? undefined : Math.min(declared, limits.maxFileBytes));
      stream.on('data', (chunk: Buffer) => collector.push(chunk));
      // A body cut short fails the file stream too; unhandled, that error would end the process.
      stream.on('error', () => fail(malformedMultipart()));
      stream.on('limit', () => fail(new PayloadTooLargeError(`"${name}" is larger than ${limitText(limits.maxFileBytes, limits.maxFileSetting)}`)));
      stream.on('close', () => {
        if (!failed)
          file = { bytes: collector.bytes(), contentType: (info.mimeType || 'application/octet-stream').toLowerCase(), filename: info.filename ?? '' };
      });
    });
    parser.on('field', (name, value, info) => {
      const refusal = typeof name === 'string' ? limits.refuseField?.(name) : undefined;
      if (refusal) fail(refusal);
      else if (info.valueTruncated) fail(new PayloadTooLargeError(`field "${name}" is longer than ${limits.maxFieldBytes} bytes`));
      else if (isFileField(name)) fail(new ValidationError(`"${name}" must be a file part (with a filename), not a text field`, name));
      // An array field (`name[]`, as the OpenAI SDKs send `timestamp_granularities[]`) keeps every value, comma-joined.
      // (busboy gives a part without a name as `undefined`, typed string or not.)
      else if (typeof name === 'string' && name.endsWith('[]') && fields[name] !== undefined) fields[name] += `,${value}`;
      else fields[name] ??= value;
    });
    parser.on('filesLimit', () => fail(new ValidationError(`send exactly one file part ("${fileField}")`, fileField)));
    parser.on('fieldsLimit', () => fail(new PayloadTooLargeError(`too many form fields; at most ${limits.maxFields} are accepted`)));
    parser.on('partsLimit', () => fail(new PayloadTooLargeError(`too many form parts; at most ${limits.maxFields + 1} are accepted`)));
    // busboy's own messages ("Unexpected end of form", "Malformed part header") are not ours to show.
    parser.on('error', () => fail(malformedMultipart()));
    parser.on('close', () => {
      if (failed) return;
      if (!file) reject(new ValidationError(`multipart upload must include a file part named "${fileField}" with the audio`, fileField));
      else resolve({ file, fields });
    });
    // A body cut off by the client or by the slow-client guard (408) fails the read with its reason.
    req.on('error', fail);
    req.pipe(parser);
  });
}

const malformedMultipart = () => new ValidationError('the multipart/form-data body is malformed or incomplete');

/**
 * Reads a raw body into memory, answering 413 as soon as it passes `limitBytes` (without
 * waiting for the rest, and before a declared Content-Length is read at all).
 */
export async function readRawBody(req: NodeJS.ReadableStream & { headers: Record<string, unknown> }, limitBytes: number, setting?: string): Promise<Buffer> {
  const declared = declaredLength(req.headers);
  if (declared !== undefined && declared > limitBytes) {
    throw bodyTooLarge(declared, limitBytes, setting);
  }
  const collector = new ByteCollector(declared);
  for await (const chunk of req) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    if (collector.received + buffer.length > limitBytes) {
      throw bodyTooLarge(undefined, limitBytes, setting);
    }
    collector.push(buffer);
  }
  return collector.bytes();
}

function declaredLength(headers: Record<string, unknown>): number | undefined {
  const declared = Number(headers['content-length']);
  return Number.isSafeInteger(declared) && declared >= 0 ? declared : undefined;
}

/**
 * Gathers a body's chunks. Given an upper bound on the bytes to come (a declared Content-Length;
 * Node's parser never passes more than declared), they go into one ArrayBuffer that grows in
 * place up to that bound: a 115-MB upload is not held twice while its chunks are joined, and
 * the bytes end up in a buffer of their own, which a worker can take without a copy (a multipart
 * file part is shorter than its body, so a buffer of the body's size would be cloned whole).
 */
class ByteCollector {
  #whole: ResizableArrayBuffer | undefined;
  readonly #chunks: Buffer[] = [];
  #received = 0;

  constructor(atMostBytes: number | undefined) {
    if (atMostBytes !== undefined && atMostBytes > 0) this.#whole = new ResizableArrayBuffer(0, { maxByteLength: atMostBytes });
  }

  get received(): number {
    return this.#received;
  }

  push(chunk: Buffer): void {
    const whole = this.#whole;
    this.#received += chunk.length;
    if (whole && this.#received <= whole.maxByteLength) {
      const at = whole.byteLength;
      whole.resize(this.#received);
      new Uint8Array(whole, at, chunk.length).set(chunk);
      return;
    }
    // More than the bound: only a stream that is not an HTTP request can send that.
    if (whole) this.#chunks.push(Buffer.from(whole));
    this.#whole = undefined;
    this.#chunks.push(chunk);
  }

  bytes(): Buffer {
    return this.#whole ? Buffer.from(this.#whole, 0, this.#whole.byteLength) : Buffer.concat(this.#chunks);
  }
}

/** Node ≥ 20 has ES2024's resizable ArrayBuffers (grown in place, within a reserved range); the ES2022 lib does not declare them. */
interface ResizableArrayBuffer extends ArrayBuffer {
  readonly maxByteLength: number;
  resize(byteLength: number): void;
}
const ResizableArrayBuffer = ArrayBuffer as unknown as new (byteLength: number, options: { maxByteLength: number }) => ResizableArrayBuffer;
