/**
 * Reads a batch's input file (OpenAI's JSONL: one `{custom_id, method, url, body}` per line).
 * A line that is not a JSON object with a `custom_id`, or a `custom_id` used twice, makes the
 * file unusable (its results could not be told apart) and fails the batch with OpenAI's
 * `errors`; anything else wrong with a line (method, url, body) fails that line alone, later.
 */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { InputLine } from './batch-store.js';

/** OpenAI's limit of requests in one batch. */
const MAX_BATCH_LINES = 50_000;
const MAX_REPORTED_ERRORS = 20;

export interface InputError {
  code: string;
  message: string;
  line: number | null;
}

export async function readInputLines(content: Readable): Promise<{ lines: InputLine[] } | { errors: InputError[] }> {
  const lines: InputLine[] = [];
  const errors: InputError[] = [];
  const seen = new Set<string>();
  let number = 0;
  for await (const text of createInterface({ input: content, crlfDelay: Number.POSITIVE_INFINITY })) {
    number++;
    if (text.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      errors.push({ code: 'invalid_json_line', message: `line ${number} is not valid JSON`, line: number });
      continue;
    }
    const customId = (parsed as { custom_id?: unknown } | null)?.custom_id;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || typeof customId !== 'string' || customId === '') {
      errors.push({ code: 'missing_custom_id', message: `line ${number} is not an object with a "custom_id" string`, line: number });
      continue;
    }
    if (seen.has(customId)) {
      errors.push({ code: 'duplicate_custom_id', message: `line ${number} repeats custom_id ${JSON.stringify(customId)}`, line: number });
      continue;
    }
    seen.add(customId);
    lines.push({ customId, request: text });
    if (lines.length > MAX_BATCH_LINES) {
      return { errors: [{ code: 'too_many_requests', message: `a batch holds at most ${MAX_BATCH_LINES} requests`, line: number }] };
    }
    if (errors.length >= MAX_REPORTED_ERRORS) break;
  }
  if (errors.length > 0) return { errors };
  if (lines.length === 0) return { errors: [{ code: 'empty_file', message: 'the input file has no requests', line: null }] };
  return { lines };
}
