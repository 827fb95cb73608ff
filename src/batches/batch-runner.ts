/**
 * Runs batches in the background of a server process: validates new batches, claims their lines
 * a few at a time, sends each through the app's own routes (line-dispatch.ts), writes results
 * in small transactions, and writes the output and error files once a batch's lines are settled.
 *
 * Fair to interactive requests: at most `concurrency` lines of all batches run at once in a
 * process, and each runs as a requester of its own (`batch key 3`), so the model queues
 * (fair-queue.ts, micro-batcher.ts) give an interactive request its turn ahead of the batch's
 * next line instead of behind all of them.
 *
 * Durable: a result is written only by the runner that still holds the line (batch-store.ts).
 * Results wait a few ms to be written together; a crash loses at most those, and their lines
 * run again. On SQLite (one process) a start voids every claim at once; on PostgreSQL another
 * replica takes a dead replica's lines when their leases end.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { KeyAccess } from '../auth/key-access.js';
import type { KeyPolicy } from '../auth/key-store.js';
import type { Logger } from '../logger.js';
import { backgroundRequester } from '../requester.js';
import { buildLineRequest } from './batch-endpoints.js';
import type { BatchObserver } from './batch-metrics.js';
import type { BatchStore, LineResult } from './batch-store.js';
import type { BatchLineRow, BatchRow } from './batch-tables.js';
import type { FileStore, Viewer } from './file-store.js';
import type { InteractiveActivity } from './interactive-activity.js';
import { readInputLines } from './input-file.js';
import type { LineDispatcher } from './line-dispatch.js';

export interface BatchRunnerOptions {
  store: BatchStore;
  files: FileStore;
  dispatcher: LineDispatcher;
  access: KeyAccess;
  logger: Logger;
  observer?: BatchObserver;
  /** Lines running at once in this process. */
  concurrency: number;
  /** Interactive requests seen lately: while there are, one line runs at a time. */
  activity?: InteractiveActivity;
  leaseMs: number;
  /** How often the database is looked at for new work when nothing woke the runner. */
  pollMs?: number;
}

/** A static key's policy: static keys are admin and unlimited (key-store.ts). */
const STATIC_POLICY: KeyPolicy = Object.freeze({ id: null, rpm: null, models: null, admin: true });
/**
 * Results are written together once this many wait, or after FLUSH_MS: each transaction is an
 * fsync (SQLite's synchronous=FULL) on the event loop, which interactive requests wait behind. A
 * crash loses at most these results; their lines run again.
 */
const FLUSH_LINES = 256;
const FLUSH_MS = 250;
/** Lines claimed per claim, in units of the concurrency: fewer claim transactions, for the same reason. */
const CLAIM_AHEAD = 4;
const POLICY_TTL_MS = 5_000;
const SWEEP_FILES_MS = 60_000;

export class BatchRunner {
  readonly #o: Required<Omit<BatchRunnerOptions, 'observer' | 'activity'>> & Pick<BatchRunnerOptions, 'observer' | 'activity'>;
  readonly #id = `runner-${randomBytes(8).toString('hex')}`;
  readonly #queue: BatchLineRow[] = [];
  /** Lines claimed and not yet settled (queued, running, result waiting): the only ones renewed. */
  readonly #held = new Set<number>();
  readonly #running = new Set<Promise<void>>();
  readonly #results: { lineId: number; result: LineResult }[] = [];
  readonly #batches = new Map<string, BatchRow>();
  readonly #policies = new Map<string, { policy: KeyPolicy | undefined; until: number }>();
  readonly #stopping = new AbortController();
  #started = false;
  #timer: NodeJS.Timeout | undefined;
  #renewer: NodeJS.Timeout | undefined;
  #renewing = false;
  #claimedBefore = false;
  #flushTimer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();
  #filling = false;
  #refill = false;
  #housekeeping: Promise<void> | undefined;
  #lastSweep = 0;
  #resumeTimer: NodeJS.Timeout | undefined;
  /** Lines ran since the queue was last found empty: its running dry is then worth a look at once. */
  #ranSinceDry = false;

  constructor(options: BatchRunnerOptions) {
    this.#o = { pollMs: 500, ...options };
  }

  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    await this.#o.files.sweepOrphans();
    if (!this.#o.store.postgres) {
      const released = await this.#o.store.releaseAllClaims();
      if (released > 0) this.#o.logger.info('batch lines resumed', { lines: released });
    }
    await this.#o.dispatcher.start();
    this.#timer = setInterval(() => this.wake(), this.#o.pollMs);
    this.#renewer = setInterval(() => void this.#renew(), Math.max(100, this.#o.leaseMs / 3));
    this.wake();
  }

  /** Stops taking lines, lets the running ones finish, writes their results and gives back the rest. */
  async stop(): Promise<void> {
    if (!this.#started) return;
    this.#started = false;
    clearInterval(this.#timer);
    clearInterval(this.#renewer);
    clearTimeout(this.#resumeTimer);
    await Promise.allSettled([...this.#running]);
    await this.#housekeeping;
    await this.#flush();
    const now = this.#o.store.now();
    for (const line of this.#queue.splice(0)) await this.#giveBack(line.id, now).catch(() => {});
    this.#held.clear();
    this.#stopping.abort();
    await this.#o.dispatcher.close();
  }

  /** Looks for work now (a batch was created or cancelled, a line finished). */
  wake(): void {
    if (!this.#started) return;
    void this.#fill();
    this.#housekeeping ??= this.#housekeep()
      .catch((error: unknown) => this.#o.logger.error('batch housekeeping failed', { error }))
      .finally(() => (this.#housekeeping = undefined));
  }

  /** Keeps `concurrency` lines running, claiming more when the local queue runs low. */
  async #fill(): Promise<void> {
    if (this.#filling) {
      this.#refill = true;
      return;
    }
    this.#filling = true;
    try {
      do {
        this.#refill = false;
        while (this.#started && this.#running.size < this.#concurrency()) {
          if (this.#queue.length === 0) {
            const claimed = await this.#o.store.claim(this.#id, this.#o.concurrency * CLAIM_AHEAD, this.#o.leaseMs);
            if (claimed.length === 0) {
              // The queue ran dry: once the last results are written, write the batch out now rather than at the next poll.
              if (this.#running.size === 0 && this.#ranSinceDry) {
                this.#ranSinceDry = false;
                void this.#flush().then(() => this.wake());
              }
              break;
            }
            if (!this.#claimedBefore) {
              // The id its claims carry (batch_lines.claimed_by): which process holds which line.
              this.#claimedBefore = true;
              this.#o.logger.info('batch runner claiming lines', { runner: this.#id, concurrency: this.#o.concurrency, leaseMs: this.#o.leaseMs });
            }
            for (const line of claimed) this.#held.add(line.id);
            this.#queue.push(...claimed);
          }
          const line = this.#queue.shift()!;
          this.#ranSinceDry = true;
          const run: Promise<void> = this.#run(line).finally(() => {
            this.#running.delete(run);
            void this.#fill();
          });
          this.#running.add(run);
        }
      } while (this.#refill && this.#started);
    } catch (error) {
      this.#o.logger.error('claiming batch lines failed', { error });
    } finally {
      this.#filling = false;
    }
  }

  /** Lines to keep running now: all of them, or one while interactive requests are about. */
  #concurrency(): number {
    if (!this.#o.activity?.recent()) return this.#o.concurrency;
    // Look again once they may have stopped, so the batch takes its full speed back.
    this.#resumeTimer ??= setTimeout(() => {
      this.#resumeTimer = undefined;
      void this.#fill();
    }, 250);
    return 1;
  }

  async #run(line: BatchLineRow): Promise<void> {
    try {
      const batch = await this.#batch(line.batch_id);
      const policy = await this.#policy(batch);
      if (!policy) {
        this.#record(line, {
          statusCode: null,
          response: null,
          error: { code: 'unauthorized', message: "the batch's API key was revoked or has expired" },
          requestId: null,
        });
        return;
      }
      const owner: Viewer = { keyId: batch.owner_key_id, admin: policy.admin };
      const built = await buildLineRequest(batch.endpoint, JSON.parse(line.request), this.#o.files, owner);
      if (!('path' in built)) {
        this.#record(line, { statusCode: null, response: null, error: built, requestId: null });
        return;
      }
      const answer = await this.#o.dispatcher.send({
        ...built,
        caller: { policy, requester: backgroundRequester(batch.requester) },
        signal: this.#stopping.signal,
      });
      const retryAfter = retryDelay(answer.status, answer.headers['retry-after'], answer.body);
      if (retryAfter !== undefined) {
        // Over the key's rate limit, or the server is full: the line waits its turn, it has not failed.
        await this.#giveBack(line.id, this.#o.store.now() + retryAfter);
        return;
      }
      const text = answer.body.toString('utf8');
      const json = /\bjson\b/.test(String(answer.headers['content-type'] ?? ''));
      this.#record(line, {
        statusCode: answer.status,
        response: json ? text : JSON.stringify(text),
        error: null,
        requestId: typeof answer.headers['x-request-id'] === 'string' ? answer.headers['x-request-id'] : null,
      });
    } catch (error) {
      if (!this.#started) return;
      this.#o.logger.warn('batch line will be retried', { batch: line.batch_id, line: line.line_index, error });
      await this.#giveBack(line.id, this.#o.store.now() + 1000).catch(() => {});
    }
  }

  /** Releases a line to run again no sooner than `notBefore`; if that fails, its lease, no longer renewed, runs out. */
  async #giveBack(lineId: number, notBefore: number): Promise<void> {
    this.#held.delete(lineId);
    await this.#o.store.release(this.#id, lineId, notBefore);
  }

  #record(line: BatchLineRow, result: LineResult): void {
    this.#results.push({ lineId: line.id, result });
    if (this.#results.length >= FLUSH_LINES) void this.#flush();
    else this.#flushTimer ??= setTimeout(() => void this.#flush(), FLUSH_MS);
  }

  /** Writes the waiting results in one transaction (one after another: they never race). */
  #flush(): Promise<void> {
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    const results = this.#results.splice(0);
    if (results.length === 0) return this.#flushing;
    this.#flushing = this.#flushing.then(async () => {
      try {
        const written = new Set(await this.#o.store.complete(this.#id, results));
        const ok = results.filter(({ lineId, result }) => written.has(lineId) && isSuccess(result.statusCode)).length;
        this.#o.observer?.lineDone('completed', ok);
        this.#o.observer?.lineDone('failed', written.size - ok);
      } catch (error) {
        // No longer renewed, their claims run out and the lines run again: nothing is written twice.
        this.#o.logger.error('writing batch results failed; the lines will run again', { lines: results.length, error });
      } finally {
        for (const { lineId } of results) this.#held.delete(lineId);
      }
    });
    return this.#flushing;
  }

  async #renew(): Promise<void> {
    // One renewal at a time: a slow one must not pile others up behind it.
    if (this.#renewing || this.#held.size === 0) return;
    this.#renewing = true;
    try {
      await this.#o.store.renew(this.#id, [...this.#held], this.#o.leaseMs);
    } catch (error) {
      this.#o.logger.warn('renewing batch line claims failed', { error });
    } finally {
      this.#renewing = false;
    }
  }

  async #batch(id: string): Promise<BatchRow> {
    let batch = this.#batches.get(id);
    if (!batch) {
      batch = await this.#o.store.get(id, { keyId: null, admin: true });
      this.#batches.set(id, batch);
    }
    return batch;
  }

  /** The owner's policy now (revoked or expired: undefined), read again every few seconds. */
  async #policy(batch: BatchRow): Promise<KeyPolicy | undefined> {
    if (batch.owner_key_id === null) return STATIC_POLICY;
    const cached = this.#policies.get(batch.id);
    if (cached && cached.until > Date.now()) return cached.policy;
    const policy = await this.#o.access.policyOf(batch.owner_key_id);
    this.#policies.set(batch.id, { policy, until: Date.now() + POLICY_TTL_MS });
    return policy;
  }

  /** New batches to validate, settled ones to write out, expired files to delete. */
  async #housekeep(): Promise<void> {
    for (const batch of await this.#o.store.validating()) await this.#validate(batch);
    await this.#flushing;
    for (const settled of await this.#o.store.settled()) await this.#finalize(settled.row, settled.ending);
    if (Date.now() - this.#lastSweep > SWEEP_FILES_MS) {
      this.#lastSweep = Date.now();
      const swept = await this.#o.files.sweepExpired();
      if (swept > 0) this.#o.logger.info('expired files deleted', { files: swept });
    }
  }

  async #validate(batch: BatchRow): Promise<void> {
    const policy = await this.#policy(batch);
    let outcome: Awaited<ReturnType<typeof readInputLines>>;
    try {
      const input = await this.#o.files.get(batch.input_file_id, { keyId: batch.owner_key_id, admin: policy?.admin ?? false });
      outcome = await readInputLines(this.#o.files.read(input));
    } catch {
      outcome = { errors: [{ code: 'invalid_input_file', message: `input file ${batch.input_file_id} is gone`, line: null }] };
    }
    if ('errors' in outcome) {
      if (await this.#o.store.fail(batch.id, outcome.errors)) this.#log(batch, 'validating', 'failed', { errors: outcome.errors.length });
      return;
    }
    if (await this.#o.store.start(batch.id, outcome.lines)) {
      this.#log(batch, 'validating', 'in_progress', { lines: outcome.lines.length });
      void this.#fill();
    }
  }

  async #finalize(batch: BatchRow, ending: 'completed' | 'expired' | 'cancelled'): Promise<void> {
    let from = batch.status;
    if (from === 'in_progress' && ending === 'completed') {
      if (!(await this.#o.store.beginFinalizing(batch.id))) return;
      this.#log(batch, 'in_progress', 'finalizing', {});
      from = 'finalizing';
    }
    const counts = await this.#o.store.counts(batch);
    // As OpenAI does: the lines a batch's window ran out on are failed, each in the error file as batch_expired.
    const expired = ending === 'expired';
    if (expired) counts.failed = counts.total - counts.completed;
    const output = counts.completed > 0 ? await this.#writeFile(batch, 'output', (line) => line.status === 'done' && isSuccess(line.status_code)) : null;
    const errors =
      counts.failed > 0 ? await this.#writeFile(batch, 'error', (line) => (line.status === 'done' ? !isSuccess(line.status_code) : expired), expired) : null;
    if (await this.#o.store.finish(batch.id, from, ending, { output, error: errors }, counts)) {
      this.#batches.delete(batch.id);
      this.#policies.delete(batch.id);
      this.#log(batch, from, ending, { ...counts });
    }
  }

  /** The output or error file of a batch, in line order; its id is the batch's, so a second writer writes the same file. */
  async #writeFile(batch: BatchRow, kind: 'output' | 'error', include: (line: BatchLineRow) => boolean, unfinished = false): Promise<string> {
    const id = `file-${digest(`${batch.id}:${kind}`)}`;
    if (await this.#o.files.exists(id)) return id;
    const store = this.#o.store;
    async function* jsonl() {
      for await (const line of store.doneLines(batch.id, { unfinished })) if (include(line)) yield `${outputLine(batch.id, line)}\n`;
    }
    const staged = await this.#o.files.stage(Readable.from(jsonl()), undefined, id);
    await this.#o.files.commit(staged, {
      filename: `${batch.id}_${kind}.jsonl`,
      purpose: 'batch_output',
      ownerKeyId: batch.owner_key_id,
      ...(batch.output_expires_seconds === null ? {} : { expiresAfterSeconds: batch.output_expires_seconds }),
    });
    return id;
  }

  #log(batch: BatchRow, from: string, to: string, details: Record<string, unknown>): void {
    this.#o.logger.info('batch status', { batch: batch.id, from, to, endpoint: batch.endpoint, ...details });
  }
}

/** OpenAI's error for a line its batch's window ran out on, word for word. */
const BATCH_EXPIRED = JSON.stringify({ code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' });
const isSuccess = (status: number | null) => status !== null && status >= 200 && status < 300;
const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 24);

/** One line of OpenAI's batch output JSONL; the answer's JSON body is copied as sent. */
function outputLine(batchId: string, line: BatchLineRow): string {
  const id = JSON.stringify(`batch_req_${digest(`${batchId}:${line.line_index}`)}`);
  const customId = JSON.stringify(line.custom_id);
  if (line.status !== 'done') return `{"id":${id},"custom_id":${customId},"response":null,"error":${BATCH_EXPIRED}}`;
  if (line.status_code === null) return `{"id":${id},"custom_id":${customId},"response":null,"error":${line.error ?? 'null'}}`;
  return `{"id":${id},"custom_id":${customId},"response":{"status_code":${line.status_code},"request_id":${JSON.stringify(line.request_id ?? '')},"body":${line.response ?? 'null'}},"error":null}`;
}

/**
 * How long to wait before running a line again, when its answer says to retry: the key's rate
 * limit (429) or a full server (503 server_busy, model_memory_exhausted). Undefined: the answer stands.
 */
function retryDelay(status: number, retryAfter: string | string[] | undefined, body: Buffer): number | undefined {
  if (status !== 429 && status !== 503) return undefined;
  if (status === 503 && !/"code":"(server_busy|model_memory_exhausted)"/.test(body.toString('utf8', 0, 2048))) return undefined;
  const seconds = Number(retryAfter);
  return (Number.isFinite(seconds) && seconds > 0 ? seconds : 1) * 1000;
}
