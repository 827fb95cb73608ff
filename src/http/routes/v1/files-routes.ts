/**
 * OpenAI's Files API: upload (multipart, streamed to disk), list, retrieve, download, delete.
 * Each key sees only its own files; admin keys see every file. Files serve the Batch API: a
 * batch's input (purpose `batch`), the audio its transcription lines name (`user_data` or
 * `batch`), and its output and error files (`batch_output`).
 */
import { Type } from '@sinclair/typebox';
import type { KeyAccess } from '../../../auth/key-access.js';
import { FileObject, fileObject } from '../../../batches/batch-shapes.js';
import type { FileStore, NewFile } from '../../../batches/file-store.js';
import { storeUpload } from '../../../batches/upload-form.js';
import { viewerOf } from '../../../batches/viewer.js';
import { ValidationError } from '../../../errors.js';
import { afterParameter, idParameter, limitParameter, ListPage, listPage, pageQuery, queryInteger } from './list-page.js';
import { declareRoute, jsonError, jsonResponse, V1_COMMON_ERRORS, type DocumentedRouter } from '../../operation.js';

const UPLOAD_PURPOSES = ['batch', 'user_data'] as const;
/** OpenAI's: purpose `batch` files expire after 30 days unless told otherwise. */
const BATCH_FILE_SECONDS = 30 * 24 * 3600;
const MIN_EXPIRY_SECONDS = 3600;
const MAX_EXPIRY_SECONDS = 30 * 24 * 3600;

const fileIdParameter = idParameter('file_id', 'The file’s id (`file-…`).');
const FileList = ListPage(FileObject, 'FileList');
const NOT_FOUND = jsonError('No file has this id, it has expired, or it belongs to another key.', ['not_found']);

export interface FilesRouteDeps {
  files: FileStore;
  access: KeyAccess;
}

export function filesRoutes(router: DocumentedRouter, { files, access }: FilesRouteDeps): void {
  declareRoute(
    router,
    {
      method: 'post',
      path: '/files',
      tags: ['batches'],
      summary: 'Upload a file (OpenAI Files API)',
      description:
        'multipart/form-data: `file`, `purpose` (`batch` for a batch’s JSONL input, `user_data` for anything else, e.g. audio a batch transcribes), and optionally `expires_after[anchor]=created_at` with `expires_after[seconds]` (3600 to 2592000). Purpose `batch` files expire after 30 days by default. The content is stored with its SHA-256.',
      secured: true,
      requestBody: {
        required: true,
        content: {
          'multipart/form-data': {
            schema: {
              type: 'object',
              required: ['file', 'purpose'],
              properties: {
                file: { type: 'string', format: 'binary' },
                purpose: { type: 'string', enum: [...UPLOAD_PURPOSES] },
                'expires_after[anchor]': { type: 'string', enum: ['created_at'] },
                'expires_after[seconds]': { type: 'integer', minimum: MIN_EXPIRY_SECONDS, maximum: MAX_EXPIRY_SECONDS },
              },
            },
          },
        },
      },
      responses: {
        '200': jsonResponse('The stored file.', FileObject),
        '400': jsonError('No `file` part, a purpose other than `batch` or `user_data`, or a bad `expires_after`.', ['invalid_request']),
        '401': V1_COMMON_ERRORS['401']!,
        '413': jsonError('The file is larger than FILES_MAX_MB, or storing it would pass FILES_MAX_TOTAL_MB.', ['payload_too_large']),
        '500': V1_COMMON_ERRORS['500']!,
      },
    },
    async (ctx) => {
      const owner = viewerOf(access);
      const row = await storeUpload(ctx.req, files, (fields, filename) => describeUpload(fields, filename, owner.keyId));
      ctx.body = fileObject(row);
    },
  );
  declareRoute(
    router,
    {
      method: 'get',
      path: '/files',
      tags: ['batches'],
      summary: 'List files',
      description: 'The key’s files (every file for an admin key), newest first unless `order=asc`; page with `after` and `limit`.',
      secured: true,
      parameters: [
        { name: 'purpose', in: 'query', required: false, schema: { type: 'string' } },
        limitParameter(10_000, 10_000),
        { name: 'order', in: 'query', required: false, schema: { type: 'string', enum: ['asc', 'desc'], default: 'desc' } },
        afterParameter,
      ],
      responses: {
        '200': jsonResponse('A page of files.', FileList),
        '400': jsonError('A bad `limit` or `order`.', ['invalid_request']),
        '401': V1_COMMON_ERRORS['401']!,
        '500': V1_COMMON_ERRORS['500']!,
      },
    },
    async (ctx) => {
      const page = pageQuery(ctx.query, 10_000, 10_000);
      const order = ctx.query.order ?? 'desc';
      if (order !== 'asc' && order !== 'desc') throw new ValidationError('"order" must be asc or desc', 'order');
      const purpose = typeof ctx.query.purpose === 'string' ? ctx.query.purpose : undefined;
      const { files: rows, hasMore } = await files.list(viewerOf(access), { ...page, order, purpose });
      ctx.body = listPage(
        rows.map(fileObject),
        rows.map((row) => row.id),
        hasMore,
      );
    },
  );
  declareRoute(
    router,
    {
      method: 'get',
      path: '/files/:file_id',
      tags: ['batches'],
      summary: 'One file',
      secured: true,
      parameters: [fileIdParameter],
      responses: { '200': jsonResponse('The file.', FileObject), '401': V1_COMMON_ERRORS['401']!, '404': NOT_FOUND, '500': V1_COMMON_ERRORS['500']! },
    },
    async (ctx) => {
      ctx.body = fileObject(await files.get(ctx.params.file_id!, viewerOf(access)));
    },
  );
  declareRoute(
    router,
    {
      method: 'get',
      path: '/files/:file_id/content',
      tags: ['batches'],
      summary: 'A file’s content',
      description: 'The bytes as uploaded (or as the batch wrote them: JSONL), with an `X-Content-SHA256` header.',
      secured: true,
      parameters: [fileIdParameter],
      responses: {
        '200': { description: 'The content.', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
        '401': V1_COMMON_ERRORS['401']!,
        '404': NOT_FOUND,
        '500': V1_COMMON_ERRORS['500']!,
      },
    },
    async (ctx) => {
      const row = await files.get(ctx.params.file_id!, viewerOf(access));
      ctx.type = 'application/octet-stream';
      ctx.length = row.bytes;
      ctx.set('X-Content-SHA256', row.sha256);
      ctx.attachment(row.filename);
      ctx.body = files.read(row);
    },
  );
  declareRoute(
    router,
    {
      method: 'delete',
      path: '/files/:file_id',
      tags: ['batches'],
      summary: 'Delete a file',
      secured: true,
      parameters: [fileIdParameter],
      responses: {
        '200': jsonResponse('Deleted.', Type.Object({ id: Type.String(), object: Type.Literal('file'), deleted: Type.Literal(true) }, { $id: 'DeletedFile' })),
        '401': V1_COMMON_ERRORS['401']!,
        '404': NOT_FOUND,
        '500': V1_COMMON_ERRORS['500']!,
      },
    },
    async (ctx) => {
      await files.delete(ctx.params.file_id!, viewerOf(access));
      ctx.body = { id: ctx.params.file_id, object: 'file', deleted: true };
    },
  );
}

function describeUpload(fields: Record<string, string>, filename: string, ownerKeyId: number | null): NewFile {
  const purpose = fields.purpose;
  if (purpose === undefined) throw new ValidationError('"purpose" is required: batch or user_data', 'purpose');
  if (!(UPLOAD_PURPOSES as readonly string[]).includes(purpose)) {
    throw new ValidationError(`"purpose" must be batch or user_data on this server (no assistants, fine-tuning or vision); got "${purpose}"`, 'purpose');
  }
  const anchor = fields['expires_after[anchor]'];
  const seconds = fields['expires_after[seconds]'];
  if ((anchor === undefined) !== (seconds === undefined)) {
    throw new ValidationError('"expires_after" needs both anchor and seconds', 'expires_after');
  }
  let expiresAfterSeconds = purpose === 'batch' ? BATCH_FILE_SECONDS : undefined;
  if (anchor !== undefined && seconds !== undefined) {
    if (anchor !== 'created_at') throw new ValidationError('"expires_after.anchor" must be created_at', 'expires_after.anchor');
    expiresAfterSeconds = queryInteger(seconds, 'expires_after.seconds', MIN_EXPIRY_SECONDS, MAX_EXPIRY_SECONDS);
  }
  return { filename, purpose, ownerKeyId, ...(expiresAfterSeconds === undefined ? {} : { expiresAfterSeconds }) };
}
