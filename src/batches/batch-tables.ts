/**
 * Tables of the Files and Batch API. Times are Unix seconds (what the API shows) except leases,
 * in milliseconds. One row per input line makes each line's result durable on its own: a line is
 * `pending`, `claimed` by one runner until its lease ends, or `done` with its answer, written once.
 */
import type { Generated, Selectable } from 'kysely';

interface FileTable {
  /** `file-` and 24 hex digits. */
  id: string;
  /** The owning stored key's id; null for a static (admin) key. */
  owner_key_id: number | null;
  filename: string;
  purpose: string;
  bytes: number;
  /** SHA-256 of the content, hex, computed while it was written. */
  sha256: string;
  created_at: number;
  expires_at: number | null;
}

interface BatchTable {
  /** `batch_` and 24 hex digits. */
  id: string;
  owner_key_id: number | null;
  /** Who the batch's model calls are made for (requester.ts), so static keys stay told apart. */
  requester: string;
  endpoint: string;
  input_file_id: string;
  completion_window: string;
  status: string;
  /** JSON of OpenAI's `errors.data` (file-level validation), or null. */
  errors: string | null;
  /** JSON object, or null. */
  metadata: string | null;
  output_file_id: string | null;
  error_file_id: string | null;
  /** Seconds the output and error files live, from `output_expires_after`; null: until deleted. */
  output_expires_seconds: number | null;
  created_at: number;
  in_progress_at: number | null;
  expires_at: number;
  finalizing_at: number | null;
  completed_at: number | null;
  failed_at: number | null;
  expired_at: number | null;
  cancelling_at: number | null;
  cancelled_at: number | null;
  request_total: number;
  request_completed: number;
  request_failed: number;
}

interface BatchLineTable {
  id: Generated<number>;
  batch_id: string;
  line_index: number;
  custom_id: string;
  /** The line as read from the input file (method, url, body), JSON. */
  request: string;
  /** `pending` | `claimed` | `done`. */
  status: string;
  /** The runner (a random id per process start) that holds the line while `claimed`. */
  claimed_by: string | null;
  /** ms: a claim ends here (another runner may take the line); a pending line waits until it. */
  lease_until: number | null;
  /** The answer's HTTP status; null until done or when the line never reached a route. */
  status_code: number | null;
  /** The answer's body (JSON, or a JSON string for text answers) when done. */
  response: string | null;
  /** `{code, message}` JSON when the line could not be sent to a route at all. */
  error: string | null;
  request_id: string | null;
}

export interface BatchTables {
  files: FileTable;
  batches: BatchTable;
  batch_lines: BatchLineTable;
}

export type FileRow = Selectable<FileTable>;
export type BatchRow = Selectable<BatchTable>;
export type BatchLineRow = Selectable<BatchLineTable>;

/** What a new batch is made of: its owner, the endpoint its lines call, its input file. */
export interface NewBatch {
  ownerKeyId: number | null;
  requester: string;
  endpoint: string;
  inputFileId: string;
  metadata: Record<string, string> | null;
  outputExpiresSeconds: number | null;
}

/** A line's outcome, as its runner writes it. */
export interface LineResult {
  statusCode: number | null;
  /** The answer's body as sent (JSON text), or a JSON string of a text answer. */
  response: string | null;
  error: { code: string; message: string } | null;
  requestId: string | null;
}

/** A line of the input file, as validation read it. */
export interface InputLine {
  customId: string;
  request: string;
}
