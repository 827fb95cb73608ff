/**
 * Kysely's SQLite driver calls `prepare(sql)` for every query it runs, and better-sqlite3 compiles
 * the SQL anew each time, which costs a hot read as much as the whole bare route's framework does
 * (docs/benchmarks.md, "HTTP layer"). This wrapper hands Kysely the same prepared statement for the
 * same SQL text, so a hot read costs only binding and stepping.
 *
 * Safe to share: SQLite re-prepares a statement itself if the schema changes under it, and
 * Kysely runs one statement at a time on the single connection (its mutex). A statement is busy
 * only while an `iterate()` is open, which holds that mutex until the stream ends.
 */
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** Enough for every distinct statement the stores issue; others are evicted oldest first. */
const DEFAULT_MAX_STATEMENTS = 200;

export function withStatementCache<D extends SqliteDatabase>(database: D, maxStatements = DEFAULT_MAX_STATEMENTS): D {
  const statements = new Map<string, SqliteStatement>();
  const prepare = (sql: string): SqliteStatement => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = database.prepare(sql);
      if (statements.size >= maxStatements) statements.delete(statements.keys().next().value!);
      statements.set(sql, statement);
    }
    return statement;
  };
  // A proxy rather than a copy: better-sqlite3's getters (`inTransaction`, `open`) must stay live.
  return new Proxy(database, {
    get(target, property) {
      if (property === 'prepare') return prepare;
      // Read with the database itself as `this`: its native getters refuse a proxy.
      const value = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
