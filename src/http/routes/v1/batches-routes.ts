/**
 * OpenAI's Batch API: create a batch from an uploaded JSONL file, follow it, list, cancel. The
 * lines run in the background (src/batches/batch-runner.ts) through the synchronous routes.
 */
import { Type } from '@sinclair/typebox';
import type { KeyAccess } from '../../../auth/key-access.js';
import { BatchObject, batchObject } from '../../../batches/batch-shapes.js';
import { BATCH_ENDPOINTS, isBatchEndpoint } from '../../../batches/batch-endpoints.js';
import type { BatchRunner } from '../../../batches/batch-runner.js';
import type { BatchStore } from '../../../batches/batch-store.js';
import type { FileStore } from '../../../batches/file-store.js';
import { viewerOf } from '../../../batches/viewer.js';
import { NotFoundError, ValidationError } from '../../../errors.js';
import { currentRequester } from '../../../requester.js';
import { jsonBody } from '../../body-parsers.js';
import { declareRoute, JSON_ONLY_415, jsonError, jsonRequest, jsonResponse, V1_COMMON_ERRORS, type DocumentedRouter } from '../../operation.js';
import type { RequestValidator } from '../../validation.js';
import { afterParameter, idParameter, limitParameter, ListPage, listPage, pageQuery } from './list-page.js';

const MAX_METADATA_PAIRS = 16;
const CreateBatch = Type.Object(
  {
    input_file_id: Type.String({ minLength: 1, description: 'An uploaded file of purpose `batch`: JSONL, one request per line.' }),
    endpoint: Type.String({
      description: `One of ${BATCH_ENDPOINTS.map((endpoint) => `\`${endpoint}\``).join(', ')} (or the translation route with its model).`,
    }),
    completion_window: Type.Literal('24h'),
    metadata: Type.Optional(
      Type.Union([Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 512 }), { maxProperties: MAX_METADATA_PAIRS }), Type.Null()]),
    ),
    output_expires_after: Type.Optional(
      Type.Object({ anchor: Type.Literal('created_at'), seconds: Type.Integer({ minimum: 3600, maximum: 2_592_000 }) }, { additionalProperties: false }),
    ),
  },
  { $id: 'CreateBatch', additionalProperties: false },
);
const BatchList = ListPage(BatchObject, 'BatchList');
const batchIdParameter = idParameter('batch_id', 'The batch’s id (`batch_…`).');
const NOT_FOUND = jsonError('No batch has this id, or it belongs to another key.', ['not_found']);

export interface BatchesRouteDeps {
  batches: BatchStore;
  files: FileStore;
  runner: BatchRunner;
  access: KeyAccess;
  validator: RequestValidator;
  maxJsonBytes: number;
}

export function batchesRoutes(router: DocumentedRouter, { batches, files, runner, access, validator, maxJsonBytes }: BatchesRouteDeps): void {
  const parse = validator.compile(CreateBatch);
  const withCounts = async (row: Awaited<ReturnType<BatchStore['get']>>) => batchObject(row, await batches.counts(row));
  declareRoute(
    router,
    {
      method: 'post',
      path: '/batches',
      tags: ['batches'],
      summary: 'Create a batch (OpenAI Batch API)',
      description:
        'Runs every line of an uploaded JSONL file (`{"custom_id", "method": "POST", "url", "body"}`) through the endpoint’s own route, in the background, at low priority; follow it with GET /v1/batches/{id}. A transcription line names its audio by file id in `body.file`.',
      secured: true,
      requestBody: jsonRequest(CreateBatch),
      responses: {
        '200': jsonResponse('The batch, validating.', BatchObject),
        '400': jsonError('A missing or invalid field, an endpoint batches do not run, or an input file that is not of purpose `batch`.', [
          'invalid_request',
          'invalid_json',
        ]),
        '401': V1_COMMON_ERRORS['401']!,
        '415': JSON_ONLY_415,
        '500': V1_COMMON_ERRORS['500']!,
      },
    },
    jsonBody(maxJsonBytes),
    async (ctx) => {
      const request = parse(ctx.request.body);
      if (!isBatchEndpoint(request.endpoint)) {
        throw new ValidationError(`"endpoint" must be one of ${BATCH_ENDPOINTS.join(', ')} on this server; got "${request.endpoint}"`, 'endpoint');
      }
      const viewer = viewerOf(access);
      const input = await files.get(request.input_file_id, viewer).catch((error: unknown) => {
        if (error instanceof NotFoundError) throw new ValidationError(`"input_file_id": no file ${request.input_file_id}`, 'input_file_id');
        throw error;
      });
      if (input.purpose !== 'batch') {
        throw new ValidationError(`"input_file_id": file ${input.id} has purpose ${input.purpose}; upload the input with purpose batch`, 'input_file_id');
      }
      const row = await batches.create({
        ownerKeyId: viewer.keyId,
        requester: currentRequester() ?? 'anonymous',
        endpoint: request.endpoint,
        inputFileId: input.id,
        metadata: request.metadata ?? null,
        outputExpiresSeconds: request.output_expires_after?.seconds ?? null,
      });
      runner.wake();
      ctx.body = await withCounts(row);
    },
  );
  declareRoute(
    router,
    {
      method: 'get',
      path: '/batches',
      tags: ['batches'],
      summary: 'List batches',
      description: 'The key’s batches (every batch for an admin key), newest first; page with `after` and `limit` (1–100, default 20).',
      secured: true,
      parameters: [afterParameter, limitParameter(100, 20)],
      responses: {
        '200': jsonResponse('A page of batches.', BatchList),
        '400': jsonError('A bad `limit`.', ['invalid_request']),
        '401': V1_COMMON_ERRORS['401']!,
        '500': V1_COMMON_ERRORS['500']!,
      },
    },
    async (ctx) => {
      const page = await batches.list(viewerOf(access), pageQuery(ctx.query, 100, 20));
      const data = await Promise.all(page.batches.map(withCounts));
      ctx.body = listPage(
        data,
        page.batches.map((row) => row.id),
        page.hasMore,
      );
    },
  );
  declareRoute(
    router,
    {
      method: 'get',
      path: '/batches/:batch_id',
      tags: ['batches'],
      summary: 'One batch, with its progress',
      secured: true,
      parameters: [batchIdParameter],
      responses: { '200': jsonResponse('The batch.', BatchObject), '401': V1_COMMON_ERRORS['401']!, '404': NOT_FOUND, '500': V1_COMMON_ERRORS['500']! },
    },
    async (ctx) => {
      ctx.body = await withCounts(await batches.get(ctx.params.batch_id!, viewerOf(access)));
    },
  );
  declareRoute(
    router,
    {
      method: 'post',
      path: '/batches/:batch_id/cancel',
      tags: ['batches'],
      summary: 'Cancel a batch',
      description:
        'The batch stops taking new lines (cancelling); once its running lines are done it is cancelled, with an output file of the lines that finished, each once.',
      secured: true,
      parameters: [batchIdParameter],
      responses: {
        '200': jsonResponse('The batch, cancelling (or already cancelled).', BatchObject),
        '401': V1_COMMON_ERRORS['401']!,
        '404': NOT_FOUND,
        '409': jsonError('The batch has already ended or is being written out.', ['conflict']),
        '500': V1_COMMON_ERRORS['500']!,
      },
    },
    async (ctx) => {
      const { row } = await batches.cancel(ctx.params.batch_id!, viewerOf(access));
      runner.wake();
      ctx.body = await withCounts(row);
    },
  );
}
