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
};

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations;
  },
};
