/**
 * The endpoints a batch may run, and how one line of a batch becomes the request the
 * synchronous route takes: JSON for embeddings, classifications and translation; for
 * transcriptions, a multipart form whose `file` is read from the file the line names by id.
 * Whatever the line's body holds beyond that, the route itself validates.
 */
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { NotFoundError } from '../errors.js';
import type { FileStore, Viewer } from './file-store.js';

/** The batch endpoints; `{model}` matches any model id in a line's url. */
export const BATCH_ENDPOINTS = ['/v1/embeddings', '/v1/classifications', '/v1/engines/{model}/translate', '/v1/audio/transcriptions'] as const;

const TRANSLATE = /^\/v1\/engines\/[A-Za-z0-9._-]+\/translate$/;

/** Whether `endpoint` is one a batch may be created for (a template, or a translation route with its model). */
export function isBatchEndpoint(endpoint: string): boolean {
  return (BATCH_ENDPOINTS as readonly string[]).includes(endpoint) || TRANSLATE.test(endpoint);
}

export interface LineError {
  code: string;
  message: string;
}

export interface BuiltRequest {
  method: 'POST';
  path: string;
  headers: Record<string, string | number>;
  body: Buffer | Readable;
}

/** The request a line stands for, or why it cannot be sent. */
export async function buildLineRequest(
  endpoint: string,
  line: { method?: unknown; url?: unknown; body?: unknown },
  files: FileStore,
  owner: Viewer,
): Promise<BuiltRequest | LineError> {
  if (line.method !== 'POST') return { code: 'invalid_request', message: `"method" must be POST, got ${JSON.stringify(line.method)}` };
  const url = line.url;
  const matches = typeof url === 'string' && (url === endpoint || (endpoint === '/v1/engines/{model}/translate' && TRANSLATE.test(url)));
  if (!matches) return { code: 'invalid_request', message: `"url" must be the batch's endpoint ${endpoint}, got ${JSON.stringify(url)}` };
  const body = line.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { code: 'invalid_request', message: '"body" must be a JSON object' };
  if (url !== '/v1/audio/transcriptions') {
    const json = Buffer.from(JSON.stringify(body));
    return { method: 'POST', path: url, headers: { 'content-type': 'application/json', 'content-length': json.length }, body: json };
  }
  return transcriptionForm(body as Record<string, unknown>, files, owner);
}

/** The OpenAI SDK's multipart form, its file read from the store; array fields as repeated `name[]`. */
async function transcriptionForm(body: Record<string, unknown>, files: FileStore, owner: Viewer): Promise<BuiltRequest | LineError> {
  const fileId = body.file;
  if (typeof fileId !== 'string') return { code: 'invalid_request', message: '"file" must be the id of an uploaded file (file-…)' };
  let file: Awaited<ReturnType<FileStore['get']>>;
  try {
    file = await files.get(fileId, owner);
  } catch (error) {
    if (error instanceof NotFoundError) return { code: 'invalid_request', message: `"file": no file ${fileId} the batch's key can read` };
    throw error;
  }
  const boundary = `----batch${randomBytes(12).toString('hex')}`;
  const part = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  let fields = '';
  for (const [name, value] of Object.entries(body)) {
    if (name === 'file' || value === null || value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) fields += part(`${name}[]`, String(item));
    else fields += part(name, typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  const filename = file.filename.replace(/["\r\n]/g, '_');
  const head = Buffer.from(
    `${fields}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  async function* content() {
    yield head;
    yield* files.read(file);
    yield tail;
  }
  return {
    method: 'POST',
    path: '/v1/audio/transcriptions',
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': head.length + file.bytes + tail.length },
    body: Readable.from(content()),
  };
}
