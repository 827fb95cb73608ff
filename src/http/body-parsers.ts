/**
 * Body parsing at the edge: each route declares which media types it takes, and over-limit,
 * malformed or mistyped bodies are rejected before a handler runs.
 */
import type { Middleware } from 'koa';
import { koaBody } from 'koa-body';
import { PayloadTooLargeError, UnsupportedMediaTypeError } from '../errors.js';

/** JSON only; 415 for any other Content-Type, 413 past `limitBytes`, 400 for malformed JSON. */
export function jsonBody(limitBytes: number): Middleware {
  const parse = koaBody({ json: true, jsonLimit: limitBytes, multipart: false, urlencoded: false, text: false });
  return async (ctx, next) => {
    if (!ctx.is('application/json')) {
      throw new UnsupportedMediaTypeError(
        `Content-Type must be application/json, got ${ctx.get('Content-Type') || 'none'}`,
      );
    }
    await parse(ctx, next);
  };
}

/** Multipart uploads (the OpenAI-style `file` + fields form), files capped at `limitBytes`. */
export function multipartBody(limitBytes: number): Middleware {
  return koaBody({
    json: false,
    urlencoded: false,
    text: false,
    multipart: true,
    // Empty files reach the route, which knows what they mean (e.g. 400 "could not decode audio").
    formidable: { maxFileSize: limitBytes, maxTotalFileSize: limitBytes, maxFiles: 1, maxFields: 20, allowEmptyFiles: true, minFileSize: 0 },
  });
}

/**
 * Reads a raw body into memory, answering 413 as soon as it passes `limitBytes` (without
 * waiting for the rest, and before a declared Content-Length is read at all).
 */
export async function readRawBody(req: NodeJS.ReadableStream & { headers: Record<string, unknown> }, limitBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) {
    throw new PayloadTooLargeError(`Body is ${declared} bytes; the limit is ${limitBytes} bytes`);
  }
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of req) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    received += buffer.length;
    if (received > limitBytes) {
      throw new PayloadTooLargeError(`Body is larger than the limit of ${limitBytes} bytes`);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}
