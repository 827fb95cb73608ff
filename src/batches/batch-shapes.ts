/**
 * The Files and Batch API's objects as OpenAI shapes them (openai/openai-openapi: OpenAIFile,
 * Batch), from our rows. Fields the spec types as plain strings or integers are left out while
 * they have no value, rather than sent as null.
 */
import { Type } from '@sinclair/typebox';
import type { BatchRow, FileRow } from './batch-tables.js';

export const FileObject = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('file'),
    bytes: Type.Integer(),
    created_at: Type.Integer({ description: 'Unix seconds.' }),
    expires_at: Type.Optional(Type.Integer({ description: 'Unix seconds; absent: kept until deleted.' })),
    filename: Type.String(),
    purpose: Type.String({ description: '`batch` or `user_data` as uploaded; `batch_output` for a batch’s output and error files.' }),
    status: Type.Literal('processed'),
    sha256: Type.String({ description: 'Extension: SHA-256 of the content, hex.' }),
  },
  { $id: 'FileObject' },
);

export function fileObject(row: FileRow): Record<string, unknown> {
  return {
    id: row.id,
    object: 'file',
    bytes: Number(row.bytes),
    created_at: row.created_at,
    ...(row.expires_at === null ? {} : { expires_at: row.expires_at }),
    filename: row.filename,
    purpose: row.purpose,
    status: 'processed',
    sha256: row.sha256,
  };
}

export const BATCH_STATUSES = ['validating', 'failed', 'in_progress', 'finalizing', 'completed', 'expired', 'cancelling', 'cancelled'] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

const TIMESTAMPS = [
  'created_at',
  'in_progress_at',
  'expires_at',
  'finalizing_at',
  'completed_at',
  'failed_at',
  'expired_at',
  'cancelling_at',
  'cancelled_at',
] as const satisfies readonly (keyof BatchRow)[];

const unix = () => Type.Optional(Type.Integer({ description: 'Unix seconds.' }));

export const BatchObject = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('batch'),
    endpoint: Type.String(),
    errors: Type.Optional(
      Type.Object({
        object: Type.Literal('list'),
        data: Type.Array(Type.Object({ code: Type.String(), message: Type.String(), line: Type.Optional(Type.Union([Type.Integer(), Type.Null()])) })),
      }),
    ),
    input_file_id: Type.String(),
    completion_window: Type.Literal('24h'),
    status: Type.Unsafe<BatchStatus>({ type: 'string', enum: [...BATCH_STATUSES] }),
    output_file_id: Type.Optional(Type.String()),
    error_file_id: Type.Optional(Type.String()),
    created_at: Type.Integer({ description: 'Unix seconds.' }),
    in_progress_at: unix(),
    expires_at: unix(),
    finalizing_at: unix(),
    completed_at: unix(),
    failed_at: unix(),
    expired_at: unix(),
    cancelling_at: unix(),
    cancelled_at: unix(),
    request_counts: Type.Object({ total: Type.Integer(), completed: Type.Integer(), failed: Type.Integer() }),
    metadata: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()]),
  },
  { $id: 'BatchObject' },
);

export interface RequestCounts {
  total: number;
  completed: number;
  failed: number;
}

export function batchObject(row: BatchRow, counts: RequestCounts): Record<string, unknown> {
  const batch: Record<string, unknown> = {
    id: row.id,
    object: 'batch',
    endpoint: row.endpoint,
    ...(row.errors === null ? {} : { errors: { object: 'list', data: JSON.parse(row.errors) } }),
    input_file_id: row.input_file_id,
    completion_window: row.completion_window,
    status: row.status,
    ...(row.output_file_id === null ? {} : { output_file_id: row.output_file_id }),
    ...(row.error_file_id === null ? {} : { error_file_id: row.error_file_id }),
  };
  for (const name of TIMESTAMPS) if (row[name] !== null) batch[name] = row[name];
  batch.request_counts = counts;
  batch.metadata = row.metadata === null ? null : JSON.parse(row.metadata);
  return batch;
}
