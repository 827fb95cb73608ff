/**
 * Reads POST /v1/files's multipart form with busboy, streaming the one file part straight into
 * the file store (never whole in memory: batch inputs and audio run to hundreds of MB). The form
 * fields may come before or after the file; they are checked once the whole form is read, and
 * a bad form leaves nothing stored.
 */
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { PayloadTooLargeError, ValidationError } from '../errors.js';
import type { FileRow } from './batch-tables.js';
import type { FileStore, NewFile, StagedFile } from './file-store.js';

const MAX_FIELDS = 8;
const MAX_FIELD_BYTES = 1024;

export async function storeUpload(
  req: IncomingMessage,
  store: FileStore,
  /** The file's metadata from the form fields; throws a ValidationError for a bad field. */
  describe: (fields: Record<string, string>, filename: string) => NewFile,
): Promise<FileRow> {
  if (!/^multipart\/form-data\b/i.test(req.headers['content-type'] ?? '')) {
    throw new ValidationError('send the file as multipart/form-data with a "file" part and a "purpose" field', 'file');
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      // One byte over, so a file of exactly the limit passes and a larger one is told apart.
      limits: { files: 1, fileSize: store.maxFileBytes + 1, fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES, parts: MAX_FIELDS + 1 },
    });
  } catch {
    throw new ValidationError('multipart/form-data needs a boundary parameter in its Content-Type');
  }
  const fields: Record<string, string> = {};
  let formError: Error | undefined;
  /** The file part being written, stopped when the form fails (its content will not come). */
  let fileStream: (NodeJS.ReadableStream & { destroy(error?: Error): void }) | undefined;
  let stored: Promise<StagedFile> | undefined;
  let filename = 'file';
  const formDone = new Promise<void>((resolve) => {
    const fail = (error: Error) => {
      formError ??= error;
      fileStream?.destroy(error);
      req.unpipe(parser);
      req.resume();
      resolve();
    };
    parser.on('file', (name, stream, info) => {
      if (name !== 'file' || stored) {
        stream.resume();
        fail(new ValidationError(`send exactly one file, in a part named "file" (got "${name}")`, 'file'));
        return;
      }
      fileStream = stream;
      let truncated = false;
      stream.on('limit', () => (truncated = true));
      stream.on('error', () => fail(new ValidationError('the multipart/form-data body is malformed or incomplete')));
      filename = info.filename || 'file';
      stored = store.stage(stream, () => {
        if (truncated) throw new PayloadTooLargeError(`the file is larger than ${store.maxFileBytes / 1024 / 1024} MB (FILES_MAX_MB)`);
      });
      // Read by the caller; here only kept from being an unhandled rejection.
      stored.catch(() => {});
    });
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(new PayloadTooLargeError(`field "${name}" is longer than ${MAX_FIELD_BYTES} bytes`));
      else fields[name] ??= value;
    });
    parser.on('fieldsLimit', () => fail(new PayloadTooLargeError(`too many form fields; at most ${MAX_FIELDS} are accepted`)));
    parser.on('filesLimit', () => fail(new ValidationError('send exactly one file, in a part named "file"', 'file')));
    parser.on('error', () => fail(new ValidationError('the multipart/form-data body is malformed or incomplete')));
    parser.on('close', () => resolve());
    req.on('error', fail);
    req.pipe(parser);
  });
  await formDone;
  let staged: StagedFile | undefined;
  try {
    staged = await stored;
  } catch (error) {
    // The store's reason (413) over the form's: a file stream cut off by the store also errors.
    formError = error as Error;
  }
  try {
    if (formError) throw formError;
    if (!staged) throw new ValidationError('the form has no "file" part: send the file in a part named "file"', 'file');
    return await store.commit(staged, describe(fields, filename));
  } catch (error) {
    if (staged) await store.discard(staged.id);
    throw error;
  }
}
