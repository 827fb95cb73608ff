/**
 * Manages the API keys accepted on /v1. Reads DATABASE_URL exactly like the server, and can run
 * while the server is up (SQLite WAL + busy timeout); revocation applies to the next request.
 *
 *   npm run keys -- create --name NAME   prints the new key on stdout, once
 *   npm run keys -- list [--json]        id, name, prefix, created, last used, status
 *   npm run keys -- revoke <id|prefix>   revokes; the whole key is accepted too
 */
import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import { createKeyStore, type ApiKeyInfo } from '../src/auth/key-store.js';
import { ConfigError, loadConfig } from '../src/config/load-config.js';
import { AppError } from '../src/errors.js';
import type { Database } from '../src/users/database.js';
import { openDatabase } from '../src/users/open-database.js';

const USAGE = `Usage:
  npm run keys -- create --name NAME
  npm run keys -- list [--json]
  npm run keys -- revoke <id|prefix>`;

class UsageError extends Error {}

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { name: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  const [command, ...rest] = positionals;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (command !== 'create' && command !== 'list' && command !== 'revoke') throw new UsageError(`unknown command "${command ?? ''}"`);

  const config = loadConfig(process.env);
  const db = await openDatabase(config.databasePath);
  try {
    await run(db, command, rest, values);
  } finally {
    await db.destroy();
  }
}

async function run(
  db: Kysely<Database>,
  command: 'create' | 'list' | 'revoke',
  args: string[],
  options: { name?: string; json?: boolean },
): Promise<void> {
  const keys = createKeyStore(db, { staticKeys: [] });
  if (command === 'create') {
    const name = options.name?.trim();
    if (!name || args.length > 0) throw new UsageError('create takes --name NAME and nothing else');
    const { key, info } = await keys.create(name);
    // The key alone goes to stdout so `KEY=$(npm run -s keys -- create --name ci)` works.
    process.stderr.write(`Created API key ${info.id} "${info.name}" (${info.prefix}…). It is shown only this once:\n`);
    process.stdout.write(`${key}\n`);
  } else if (command === 'list') {
    const rows = await keys.list();
    process.stdout.write(options.json ? `${JSON.stringify(rows, null, 2)}\n` : formatTable(rows));
  } else {
    const [target] = args;
    if (!target || args.length > 1) throw new UsageError('revoke takes one id or prefix');
    const info = await keys.revoke(target);
    process.stdout.write(`Revoked API key ${info.id} "${info.name}" (${info.prefix}…) at ${info.revoked_at}\n`);
  }
}

function formatTable(rows: ApiKeyInfo[]): string {
  if (rows.length === 0) return 'No API keys. Create one with: npm run keys -- create --name NAME\n';
  const table = [
    ['ID', 'NAME', 'PREFIX', 'CREATED', 'LAST USED', 'STATUS'],
    ...rows.map((row) => [
      String(row.id),
      row.name,
      row.prefix,
      row.created_at,
      row.last_used_at ?? 'never',
      row.revoked_at ? `revoked ${row.revoked_at}` : 'active',
    ]),
  ];
  const widths = table[0]!.map((_, column) => Math.max(...table.map((cells) => cells[column]!.length)));
  return table.map((cells) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n') + '\n';
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError || (error as { code?: string })?.code?.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  if (error instanceof ConfigError) process.stderr.write(`Configuration error: ${error.message}\n`);
  else if (error instanceof AppError) process.stderr.write(`${error.message}\n`);
  else process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
