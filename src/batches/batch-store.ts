/**
 * Batches and their lines in the database. Every change of a line is one conditional UPDATE,
 * so whatever process runs it and whenever it dies, a line's result is written at most once:
 * a line is claimed (`pending` → `claimed`, with the runner's id and a lease), and done only
 * by the runner that still holds it (`claimed` by me → `done`). A runner that dies leaves its
 * claims to expire; the line is then claimed again and run again, its first run never written.
 *
 * On PostgreSQL replicas claim with `FOR UPDATE SKIP LOCKED`, so two replicas never take the
 * same line and neither waits on the other's locks; SQLite serves one process (its writes are
 * serialised anyway).
 */
import { randomBytes } from 'node:crypto';
import { PostgresAdapter, sql, type Kysely } from 'kysely';
import { ConflictError, NotFoundError } from '../errors.js';
import type { Database } from '../users/database.js';
import type { BatchLineRow, BatchRow, InputLine, LineResult, NewBatch } from './batch-tables.js';
import type { BatchStatus, RequestCounts } from './batch-shapes.js';

export type { InputLine, LineResult } from './batch-tables.js';
import { visible, type Viewer } from './file-store.js';

/** The batch's completion window: 24 h, the only one OpenAI offers. */
const COMPLETION_WINDOW_SECONDS = 24 * 3600;

/** Statuses a batch ends in. */
const FINAL_STATUSES: readonly BatchStatus[] = ['completed', 'failed', 'expired', 'cancelled'];

export class BatchStore {
  readonly #db: Kysely<Database>;
  readonly #postgres: boolean;
  /** The clock (ms) windows, leases and timestamps are read from: tests move it past a batch's window. */
  readonly now: () => number;
  readonly #seconds = () => Math.floor(this.now() / 1000);

  constructor(db: Kysely<Database>, options: { now?: () => number } = {}) {
    this.#db = db;
    this.#postgres = db.getExecutor().adapter instanceof PostgresAdapter;
    this.now = options.now ?? Date.now;
  }

  get postgres(): boolean {
    return this.#postgres;
  }

  async create(batch: NewBatch): Promise<BatchRow> {
    const createdAt = this.#seconds();
    const row: BatchRow = {
      id: `batch_${randomBytes(12).toString('hex')}`,
      owner_key_id: batch.ownerKeyId,
      requester: batch.requester,
      endpoint: batch.endpoint,
      input_file_id: batch.inputFileId,
      completion_window: '24h',
      status: 'validating',
      errors: null,
      metadata: batch.metadata === null ? null : JSON.stringify(batch.metadata),
      output_file_id: null,
      error_file_id: null,
      output_expires_seconds: batch.outputExpiresSeconds,
      created_at: createdAt,
      in_progress_at: null,
      expires_at: createdAt + COMPLETION_WINDOW_SECONDS,
      finalizing_at: null,
      completed_at: null,
      failed_at: null,
      expired_at: null,
      cancelling_at: null,
      cancelled_at: null,
      request_total: 0,
      request_completed: 0,
      request_failed: 0,
    };
    await this.#db.insertInto('batches').values(row).execute();
    return row;
  }

  /** The batch if `viewer` may see it; 404 otherwise (another key's batch is not told apart from none). */
  async get(id: string, viewer: Viewer): Promise<BatchRow> {
    const row = await this.#db.selectFrom('batches').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row || !visible(row, viewer)) throw new NotFoundError('Batch', id);
    return row;
  }

  async list(viewer: Viewer, query: { after?: string; limit: number }): Promise<{ batches: BatchRow[]; hasMore: boolean }> {
    let select = this.#db.selectFrom('batches').selectAll();
    if (!viewer.admin) select = select.where('owner_key_id', '=', viewer.keyId ?? -1);
    if (query.after !== undefined) {
      const cursor = await this.#db.selectFrom('batches').select(['created_at', 'id']).where('id', '=', query.after).executeTakeFirst();
      if (cursor) {
        select = select.where((eb) =>
          eb.or([eb('created_at', '<', cursor.created_at), eb.and([eb('created_at', '=', cursor.created_at), eb('id', '<', cursor.id)])]),
        );
      }
    }
    const rows = await select
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(query.limit + 1)
      .execute();
    return { batches: rows.slice(0, query.limit), hasMore: rows.length > query.limit };
  }

  /** Progress: from the lines while the batch runs, as stored once it has ended. */
  async counts(row: BatchRow): Promise<RequestCounts> {
    if ((FINAL_STATUSES as readonly string[]).includes(row.status)) {
      return { total: row.request_total, completed: row.request_completed, failed: row.request_failed };
    }
    const done = await this.#db
      .selectFrom('batch_lines')
      .select((eb) => [
        eb.fn.countAll<number | string>().as('total'),
        eb.fn.sum<number | string | null>(sql`CASE WHEN status = 'done' AND status_code BETWEEN 200 AND 299 THEN 1 ELSE 0 END`).as('completed'),
        eb.fn
          .sum<number | string | null>(sql`CASE WHEN status = 'done' AND (status_code IS NULL OR status_code NOT BETWEEN 200 AND 299) THEN 1 ELSE 0 END`)
          .as('failed'),
      ])
      .where('batch_id', '=', row.id)
      .executeTakeFirstOrThrow();
    return { total: Number(done.total), completed: Number(done.completed ?? 0), failed: Number(done.failed ?? 0) };
  }

  /** Asks a batch to stop: validating or running → cancelling; already stopping or stopped: unchanged. */
  async cancel(id: string, viewer: Viewer): Promise<{ row: BatchRow; changed: boolean }> {
    const row = await this.get(id, viewer);
    if (row.status === 'cancelling' || row.status === 'cancelled') return { row, changed: false };
    if (row.status !== 'validating' && row.status !== 'in_progress') {
      throw new ConflictError(`batch ${id} is ${row.status}; only a validating or in_progress batch can be cancelled`);
    }
    const at = this.#seconds();
    const updated = await this.#db
      .updateTable('batches')
      .set({ status: 'cancelling', cancelling_at: at })
      .where('id', '=', id)
      .where('status', '=', row.status)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) return this.cancel(id, viewer);
    return { row: { ...row, status: 'cancelling', cancelling_at: at }, changed: true };
  }

  /** The batches waiting to be validated, oldest first. */
  validating(limit = 4): Promise<BatchRow[]> {
    return this.#db.selectFrom('batches').selectAll().where('status', '=', 'validating').orderBy('created_at').limit(limit).execute();
  }

  /**
   * Stores a validated batch's lines and starts it, in one transaction (a crash before it
   * leaves the batch validating, to be read again). False when another runner got there first.
   */
  async start(id: string, lines: readonly InputLine[]): Promise<boolean> {
    return this.#db.transaction().execute(async (trx) => {
      const started = await trx
        .updateTable('batches')
        .set({ status: 'in_progress', in_progress_at: this.#seconds(), request_total: lines.length })
        .where('id', '=', id)
        .where('status', '=', 'validating')
        .executeTakeFirst();
      if (Number(started.numUpdatedRows) === 0) return false;
      // Chunks keep each statement under SQLite's variable limit.
      for (let at = 0; at < lines.length; at += 500) {
        await trx
          .insertInto('batch_lines')
          .values(
            lines.slice(at, at + 500).map((line, offset) => ({
              batch_id: id,
              line_index: at + offset,
              custom_id: line.customId,
              request: line.request,
              status: 'pending',
              claimed_by: null,
              lease_until: null,
              status_code: null,
              response: null,
              error: null,
              request_id: null,
            })),
          )
          .onConflict((oc) => oc.columns(['batch_id', 'line_index']).doNothing())
          .execute();
      }
      return true;
    });
  }

  /** Ends a batch before it ran (its input file is unusable), with OpenAI's `errors.data`. */
  async fail(id: string, errors: readonly { code: string; message: string; line?: number | null }[]): Promise<boolean> {
    const result = await this.#db
      .updateTable('batches')
      .set({ status: 'failed', failed_at: this.#seconds(), errors: JSON.stringify(errors) })
      .where('id', '=', id)
      .where('status', '=', 'validating')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /**
   * Claims up to `count` lines for `runner`: pending ones whose wait is over, and claimed ones
   * whose runner's lease ran out, of running batches within their window, oldest batch first.
   */
  async claim(runner: string, count: number, leaseMs: number): Promise<BatchLineRow[]> {
    const now = this.now();
    const lock = this.#postgres ? sql` FOR UPDATE OF l SKIP LOCKED` : sql``;
    const result = await sql<BatchLineRow>`
      UPDATE batch_lines SET status = 'claimed', claimed_by = ${runner}, lease_until = ${now + leaseMs}
      WHERE id IN (
        SELECT l.id FROM batch_lines l JOIN batches b ON b.id = l.batch_id
        WHERE b.status = 'in_progress' AND b.expires_at > ${Math.floor(now / 1000)}
          AND ((l.status = 'pending' AND (l.lease_until IS NULL OR l.lease_until <= ${now}))
            OR (l.status = 'claimed' AND l.lease_until <= ${now}))
        ORDER BY b.created_at, l.batch_id, l.line_index
        LIMIT ${count}${lock}
      )
      RETURNING *`.execute(this.#db);
    return result.rows.sort((a, b) => (a.batch_id === b.batch_id ? a.line_index - b.line_index : a.batch_id < b.batch_id ? -1 : 1));
  }

  /**
   * Extends the leases of the lines `runner` names and still holds: only those it is running or
   * writing, so a line whose result it failed to write is let go rather than renewed forever.
   * On PostgreSQL it skips rows another transaction has locked instead of waiting: its own result
   * write (which settles the line anyway) or another runner taking a lost line. Waiting locked the
   * rows in a different order than that write did, and the two deadlocked.
   */
  async renew(runner: string, lineIds: readonly number[], leaseMs: number): Promise<void> {
    const until = this.now() + leaseMs;
    for (let at = 0; at < lineIds.length; at += 500) {
      const held = this.#db
        .selectFrom('batch_lines')
        .select('id')
        .where('id', 'in', lineIds.slice(at, at + 500))
        .where('status', '=', 'claimed')
        .where('claimed_by', '=', runner)
        .$if(this.#postgres, (select) => select.forUpdate().skipLocked());
      await this.#db.updateTable('batch_lines').set({ lease_until: until }).where('id', 'in', held).execute();
    }
  }

  /** On start, with one process per database (SQLite): claims of the process that died are void at once. */
  async releaseAllClaims(): Promise<number> {
    const result = await this.#db
      .updateTable('batch_lines')
      .set({ status: 'pending', claimed_by: null, lease_until: null })
      .where('status', '=', 'claimed')
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /**
   * Writes the results of lines `runner` still holds, in one transaction; a line whose claim
   * it lost (lease over, taken by another) is left alone. Returns the ids written.
   */
  async complete(runner: string, results: readonly { lineId: number; result: LineResult }[]): Promise<number[]> {
    if (results.length === 0) return [];
    return this.#db.transaction().execute(async (trx) => {
      const written: number[] = [];
      // A fixed order: no two writers ever wait for each other's lines in opposite orders.
      for (const { lineId, result } of [...results].sort((a, b) => a.lineId - b.lineId)) {
        const update = await trx
          .updateTable('batch_lines')
          .set({
            status: 'done',
            claimed_by: null,
            lease_until: null,
            status_code: result.statusCode,
            response: result.response,
            error: result.error === null ? null : JSON.stringify(result.error),
            request_id: result.requestId,
          })
          .where('id', '=', lineId)
          .where('status', '=', 'claimed')
          .where('claimed_by', '=', runner)
          .executeTakeFirst();
        if (Number(update.numUpdatedRows) > 0) written.push(lineId);
      }
      return written;
    });
  }

  /** Gives a claimed line back, to be run again no sooner than `notBefore` (ms): rate limited, server busy. */
  async release(runner: string, lineId: number, notBefore: number): Promise<void> {
    await this.#db
      .updateTable('batch_lines')
      .set({ status: 'pending', claimed_by: null, lease_until: notBefore })
      .where('id', '=', lineId)
      .where('status', '=', 'claimed')
      .where('claimed_by', '=', runner)
      .execute();
  }

  /**
   * Batches whose lines are settled and can be written out: running ones with every line done
   * (→ completed), or past their window (→ expired), and cancelling ones (→ cancelled), once
   * no live claim remains. Also batches left finalizing by a runner that died.
   */
  async settled(): Promise<{ row: BatchRow; ending: 'completed' | 'expired' | 'cancelled' }[]> {
    const now = this.now();
    const rows = await this.#db
      .selectFrom('batches as b')
      .selectAll('b')
      .where('b.status', 'in', ['in_progress', 'cancelling', 'finalizing'])
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('batch_lines as l')
              .select('l.id')
              .whereRef('l.batch_id', '=', 'b.id')
              .where((eb) =>
                eb.or([
                  eb.and([eb('l.status', '=', 'claimed'), eb('l.lease_until', '>', now)]),
                  // Lines still to run keep a running batch open until its window ends.
                  eb.and([
                    eb('b.status', 'in', ['in_progress', 'finalizing']),
                    eb('b.expires_at', '>', Math.floor(now / 1000)),
                    eb('l.status', 'in', ['pending', 'claimed']),
                  ]),
                ]),
              ),
          ),
        ),
      )
      .orderBy('b.created_at')
      .limit(8)
      .execute();
    return rows.map((row) => ({
      row,
      ending: row.status === 'cancelling' ? 'cancelled' : row.expires_at <= Math.floor(now / 1000) && row.status !== 'finalizing' ? 'expired' : 'completed',
    }));
  }

  /** in_progress → finalizing; false if it is no longer running. */
  async beginFinalizing(id: string): Promise<boolean> {
    const result = await this.#db
      .updateTable('batches')
      .set({ status: 'finalizing', finalizing_at: this.#seconds() })
      .where('id', '=', id)
      .where('status', '=', 'in_progress')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** The done lines of a batch in line order, a page at a time; with `unfinished`, every line. */
  async *doneLines(batchId: string, { unfinished = false, pageSize = 500 } = {}): AsyncGenerator<BatchLineRow> {
    let after = -1;
    for (;;) {
      const page = await this.#db
        .selectFrom('batch_lines')
        .selectAll()
        .where('batch_id', '=', batchId)
        .$if(!unfinished, (select) => select.where('status', '=', 'done'))
        .where('line_index', '>', after)
        .orderBy('line_index')
        .limit(pageSize)
        .execute();
      yield* page;
      if (page.length < pageSize) return;
      after = page.at(-1)!.line_index;
    }
  }

  /** Ends a batch (from `from`) with its files and final counts; false if another runner ended it first. */
  async finish(
    id: string,
    from: string,
    ending: 'completed' | 'expired' | 'cancelled',
    files: { output: string | null; error: string | null },
    counts: RequestCounts,
  ): Promise<boolean> {
    const at = this.#seconds();
    const result = await this.#db
      .updateTable('batches')
      .set({
        status: ending,
        output_file_id: files.output,
        error_file_id: files.error,
        request_total: counts.total,
        request_completed: counts.completed,
        request_failed: counts.failed,
        ...(ending === 'completed' ? { completed_at: at } : ending === 'expired' ? { expired_at: at } : { cancelled_at: at }),
      })
      .where('id', '=', id)
      .where('status', '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Lines waiting to run (pending or claimed) in running batches, and batches by status: for /metrics. */
  async depth(): Promise<{ lines: number; batches: Record<string, number> }> {
    const lines = await this.#db
      .selectFrom('batch_lines')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('status', 'in', ['pending', 'claimed'])
      .executeTakeFirstOrThrow();
    const batches = await this.#db
      .selectFrom('batches')
      .select(['status', (eb) => eb.fn.countAll<number | string>().as('n')])
      .groupBy('status')
      .execute();
    return { lines: Number(lines.n), batches: Object.fromEntries(batches.map((row) => [row.status, Number(row.n)])) };
  }
}
