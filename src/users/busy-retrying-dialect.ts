/**
 * Kysely's SQLite dialect, with one change: a statement that finds the database locked by
 * another process (SQLITE_BUSY, e.g. `npm run keys` or a sqlite3 shell in BEGIN IMMEDIATE) is
 * retried asynchronously with backoff until a deadline, then fails with a 503.
 *
 * Why not SQLite's busy_timeout: better-sqlite3 is synchronous, so a busy handler that sleeps
 * sleeps on the event loop and every request of the process waits with it. The connection is
 * opened with busy_timeout 0 and the waiting happens here instead.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { CompiledQuery, SqliteDialect, type DatabaseConnection, type Driver, type QueryResult, type SqliteDatabase } from 'kysely';
import { ServerBusyError } from '../errors.js';

interface BusyRetryingDialectConfig {
  /** A better-sqlite3 database opened with `busy_timeout = 0`. */
  database: SqliteDatabase & { readonly inTransaction: boolean };
  /** How long one statement may wait for another process's lock before answering 503. */
  deadlineMs: number;
}

const FIRST_PAUSE_MS = 2;
const MAX_PAUSE_MS = 100;
const RETRY_AFTER_SECONDS = 1;

export class BusyRetryingDialect extends SqliteDialect {
  readonly #config: BusyRetryingDialectConfig;

  constructor(config: BusyRetryingDialectConfig) {
    super({ database: config.database });
    this.#config = config;
  }

  override createDriver(): Driver {
    return new BusyRetryingDriver(super.createDriver(), this.#config);
  }
}

/** True for SQLITE_BUSY and its extended codes (better-sqlite3 reports extended result codes). */
export function isBusyError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

class BusyRetryingDriver implements Driver {
  readonly #inner: Driver;
  readonly #config: BusyRetryingDialectConfig;
  #connection: RetryingConnection | undefined;

  constructor(inner: Driver, config: BusyRetryingDialectConfig) {
    this.#inner = inner;
    this.#config = config;
  }

  init(): Promise<void> {
    return this.#inner.init();
  }

  acquireConnection(): Promise<DatabaseConnection> {
    // Every query passes here: a `then` with a callback made once, not an async frame per call.
    return this.#inner.acquireConnection().then(this.#wrap);
  }

  /** SQLite has a single connection behind a mutex, so one wrapper serves every acquisition. */
  readonly #wrap = (connection: DatabaseConnection): DatabaseConnection =>
    (this.#connection ??= new RetryingConnection(connection, this.#config, {
      release: () => this.#inner.releaseConnection(connection),
      reacquire: async () => void (await this.#inner.acquireConnection()),
    }));

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    // IMMEDIATE takes the write lock at BEGIN, where waiting for it is a plain retry. A deferred
    // transaction would meet the lock at its first write, holding a read snapshot that another
    // process's commit can make stale (SQLITE_BUSY_SNAPSHOT), which no retry of that statement fixes.
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#inner.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#inner.rollbackTransaction(connection);
  }

  savepoint: Driver['savepoint'] = (connection, name, compile) => this.#inner.savepoint!(connection, name, compile);
  rollbackToSavepoint: Driver['rollbackToSavepoint'] = (connection, name, compile) => this.#inner.rollbackToSavepoint!(connection, name, compile);
  releaseSavepoint: Driver['releaseSavepoint'] = (connection, name, compile) => this.#inner.releaseSavepoint!(connection, name, compile);

  releaseConnection(): Promise<void> {
    // The inner driver ignores which connection is released: it unlocks its one mutex.
    return this.#inner.releaseConnection(this.#connection!);
  }

  destroy(): Promise<void> {
    return this.#inner.destroy();
  }
}

interface ConnectionLock {
  release(): Promise<void>;
  reacquire(): Promise<void>;
}

class RetryingConnection implements DatabaseConnection {
  readonly #inner: DatabaseConnection;
  readonly #config: BusyRetryingDialectConfig;
  readonly #lock: ConnectionLock;

  constructor(inner: DatabaseConnection, config: BusyRetryingDialectConfig, lock: ConnectionLock) {
    this.#inner = inner;
    this.#config = config;
    this.#lock = lock;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const deadline = performance.now() + this.#config.deadlineMs;
    for (let pauseMs = FIRST_PAUSE_MS; ; pauseMs = Math.min(pauseMs * 2, MAX_PAUSE_MS)) {
      try {
        // A statement that fails with SQLITE_BUSY has done nothing, so running it again is safe.
        return await this.#inner.executeQuery<R>(query);
      } catch (error) {
        if (!isBusyError(error)) throw error;
        const remainingMs = deadline - performance.now();
        if (remainingMs <= 0) {
          throw new ServerBusyError('The database is locked by another process; retry in a moment', RETRY_AFTER_SECONDS);
        }
        await this.#pause(Math.min(pauseMs, remainingMs));
      }
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    // Streams are reads, which WAL never blocks on another process's write lock.
    return this.#inner.streamQuery<R>(query, chunkSize);
  }

  /**
   * Outside a transaction the connection is handed back while waiting, so reads (never blocked
   * under WAL) and other requests' statements keep flowing instead of queueing behind this one.
   * Inside a transaction it must stay ours: the transaction's earlier statements live on it.
   */
  async #pause(ms: number): Promise<void> {
    if (this.#config.database.inTransaction) {
      await sleep(ms);
      return;
    }
    await this.#lock.release();
    try {
      await sleep(ms);
    } finally {
      await this.#lock.reacquire();
    }
  }
}
