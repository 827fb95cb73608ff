/**
 * Migrations are listed here rather than scanned from disk so tsx and the compiled `dist/`
 * behave alike. They use Kysely<any>: a migration is frozen in time and must not follow
 * later changes to the table types.
 */
import { PostgresAdapter, sql, type ColumnDefinitionBuilder, type Kysely, type Migration, type MigrationProvider } from 'kysely';

/** The SQLite statements stay exactly as first shipped; PostgreSQL gets its equivalents. */
const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

/** An integer primary key the database numbers: AUTOINCREMENT in SQLite, an identity column in PostgreSQL. */
const generatedId = (db: Kysely<any>) => (col: ColumnDefinitionBuilder) =>
  isPostgres(db) ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement();

const migrations: Record<string, Migration> = {
  '2026-11-22-001-users': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('users')
        .addColumn('id', 'integer', generatedId(db))
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('email', 'text', (col) => col.notNull())
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addColumn('updated_at', 'text', (col) => col.notNull())
        .execute();
      // Emails are unique regardless of case: "Ann@x.org" and "ann@x.org" are one mailbox.
      await (isPostgres(db)
        ? sql`CREATE UNIQUE INDEX users_email_nocase ON users (lower(email))`
        : sql`CREATE UNIQUE INDEX users_email_nocase ON users (email COLLATE NOCASE)`
      ).execute(db);
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('users').execute();
    },
  },
  '2026-11-22-002-api-keys': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'integer', generatedId(db))
        .addColumn('name', 'text', (col) => col.notNull())
        .addColumn('prefix', 'text', (col) => col.notNull())
        .addColumn('key_hash', 'text', (col) => col.notNull().unique())
        .addColumn('created_at', 'text', (col) => col.notNull())
        .addColumn('last_used_at', 'text')
        .addColumn('revoked_at', 'text')
        .execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('api_keys').execute();
    },
  },
  '2026-11-23-003-api-key-policy': {
    async up(db: Kysely<any>) {
      // One column per statement: SQLite's ALTER TABLE adds one at a time.
      const add = (column: string, type: 'integer' | 'text' | 'real', build?: (col: ColumnDefinitionBuilder) => ColumnDefinitionBuilder) =>
        db.schema
          .alterTable('api_keys')
          .addColumn(column, type, build ?? ((col) => col))
          .execute();
      await add('rpm', 'integer');
      await add('models', 'text');
      await add('expires_at', 'text');
      await add('admin', 'integer', (col) => col.notNull().defaultTo(0));
      await add('requests', 'integer', (col) => col.notNull().defaultTo(0));
      await add('audio_seconds', 'real', (col) => col.notNull().defaultTo(0));
      await add('characters', 'integer', (col) => col.notNull().defaultTo(0));
    },
    async down(db: Kysely<any>) {
      for (const column of ['rpm', 'models', 'expires_at', 'admin', 'requests', 'audio_seconds', 'characters']) {
        await db.schema.alterTable('api_keys').dropColumn(column).execute();
      }
    },
  },
  '2026-12-07-004-files-and-batches': {
    async up(db: Kysely<any>) {
      // Sizes and lease times pass 2^31: a double holds them exactly, and `pg` reads it as a number (int8 would be a string).
      const double = isPostgres(db) ? 'double precision' : 'real';
      await db.schema
        .createTable('files')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('owner_key_id', 'integer')
        .addColumn('filename', 'text', (col) => col.notNull())
        .addColumn('purpose', 'text', (col) => col.notNull())
        .addColumn('bytes', sql.raw(double), (col) => col.notNull())
        .addColumn('sha256', 'text', (col) => col.notNull())
        .addColumn('created_at', 'integer', (col) => col.notNull())
        .addColumn('expires_at', 'integer')
        .execute();
      await db.schema.createIndex('files_owner_created').on('files').columns(['owner_key_id', 'created_at']).execute();
      await db.schema
        .createTable('batches')
        .addColumn('id', 'text', (col) => col.primaryKey())
        .addColumn('owner_key_id', 'integer')
        .addColumn('requester', 'text', (col) => col.notNull())
        .addColumn('endpoint', 'text', (col) => col.notNull())
        .addColumn('input_file_id', 'text', (col) => col.notNull())
        .addColumn('completion_window', 'text', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('errors', 'text')
        .addColumn('metadata', 'text')
        .addColumn('output_file_id', 'text')
        .addColumn('error_file_id', 'text')
        .addColumn('output_expires_seconds', 'integer')
        .addColumn('created_at', 'integer', (col) => col.notNull())
        .addColumn('in_progress_at', 'integer')
        .addColumn('expires_at', 'integer', (col) => col.notNull())
        .addColumn('finalizing_at', 'integer')
        .addColumn('completed_at', 'integer')
        .addColumn('failed_at', 'integer')
        .addColumn('expired_at', 'integer')
        .addColumn('cancelling_at', 'integer')
        .addColumn('cancelled_at', 'integer')
        .addColumn('request_total', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('request_completed', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('request_failed', 'integer', (col) => col.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('batches_status').on('batches').column('status').execute();
      await db.schema.createIndex('batches_owner_created').on('batches').columns(['owner_key_id', 'created_at']).execute();
      await db.schema
        .createTable('batch_lines')
        .addColumn('id', 'integer', generatedId(db))
        .addColumn('batch_id', 'text', (col) => col.notNull().references('batches.id').onDelete('cascade'))
        .addColumn('line_index', 'integer', (col) => col.notNull())
        .addColumn('custom_id', 'text', (col) => col.notNull())
        .addColumn('request', 'text', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('claimed_by', 'text')
        .addColumn('lease_until', sql.raw(double))
        .addColumn('status_code', 'integer')
        .addColumn('response', 'text')
        .addColumn('error', 'text')
        .addColumn('request_id', 'text')
        .execute();
      // One row per line, ever: a result can only be written to the line's one row.
      await db.schema.createIndex('batch_lines_line').on('batch_lines').columns(['batch_id', 'line_index']).unique().execute();
      await db.schema.createIndex('batch_lines_status').on('batch_lines').columns(['status', 'batch_id', 'line_index']).execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('batch_lines').execute();
      await db.schema.dropTable('batches').execute();
      await db.schema.dropTable('files').execute();
    },
  },
};

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations;
  },
};
