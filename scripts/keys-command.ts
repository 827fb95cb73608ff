/**
 * Manages the API keys accepted on /v1. Reads DATABASE_URL exactly like the server, and can run
 * while the server is up (SQLite WAL + busy timeout); revocation applies to the next request.
 *
 *   npm run keys -- create --name NAME [--rpm N] [--models a,b] [--expires 30d|12h|<ISO date>] [--admin]
 *                                        prints the new key on stdout, once
 *   npm run keys -- list [--json]        id, name, prefix, created, last used, status, policy, usage
 *   npm run keys -- revoke <id|prefix>   revokes; the whole key is accepted too
 */
import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import { createKeyStore, type ApiKeyInfo, type NewKeyPolicy } from '../src/auth/key-store.js';
import { ConfigError, loadConfig } from '../src/config/load-config.js';
import { AppError } from '../src/errors.js';
import type { Database } from '../src/users/database.js';
import { openDatabase } from '../src/users/open-database.js';

const USAGE = `Usage:
  npm run keys -- create --name NAME [--rpm N] [--models a,b] [--expires 30d|12h|2027-01-01] [--admin]
  npm run keys -- list [--json]
  npm run keys -- revoke <id|prefix>`;

class UsageError extends Error {}

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      rpm: { type: 'string' },
      models: { type: 'string' },
      expires: { type: 'string' },
      admin: { type: 'boolean' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
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
  options: { name?: string; json?: boolean; rpm?: string; models?: string; expires?: string; admin?: boolean },
): Promise<void> {
  const keys = createKeyStore(db, { staticKeys: [] });
  if (command === 'create') {
    const name = options.name?.trim();
    if (!name || args.length > 0) throw new UsageError('create takes --name NAME, policy options and nothing else');
    const { key, info } = await keys.create(name, policyOptions(options));
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

function policyOptions(options: { rpm?: string; models?: string; expires?: string; admin?: boolean }): NewKeyPolicy {
  const policy: NewKeyPolicy = { admin: options.admin === true };
  if (options.rpm !== undefined) {
    const rpm = Number(options.rpm);
    if (!Number.isInteger(rpm) || rpm < 1 || rpm > 1_000_000) throw new UsageError('--rpm must be a whole number of requests per minute, 1 or more');
    policy.rpm = rpm;
  }
  if (options.models !== undefined) {
    const models = options.models
      .split(',')
      .map((id) => id.trim())
      .filter((id) => id !== '');
    if (models.length === 0) throw new UsageError('--models takes model ids or aliases separated by commas');
    policy.models = models;
  }
  if (options.expires !== undefined) policy.expiresAt = expiry(options.expires);
  return policy;
}

/** `30d`, `12h`, `90m` from now, or a date. */
function expiry(text: string): Date {
  const relative = /^(\d+)([dhm])$/.exec(text);
  const at = relative
    ? new Date(Date.now() + Number(relative[1]) * { d: 86_400_000, h: 3_600_000, m: 60_000 }[relative[2] as 'd' | 'h' | 'm'])
    : new Date(text);
  if (Number.isNaN(at.getTime()) || at.getTime() <= Date.now()) throw new UsageError('--expires must be a duration such as 30d, 12h, 90m or a future date');
  return at;
}

function formatTable(rows: ApiKeyInfo[]): string {
  if (rows.length === 0) return 'No API keys. Create one with: npm run keys -- create --name NAME\n';
  const table = [
    ['ID', 'NAME', 'PREFIX', 'CREATED', 'LAST USED', 'STATUS', 'POLICY', 'REQUESTS', 'AUDIO S', 'CHARS'],
    ...rows.map((row) => [
      String(row.id),
      row.name,
      row.prefix,
      row.created_at,
      row.last_used_at ?? 'never',
      row.revoked_at ? `revoked ${row.revoked_at}` : row.expires_at && Date.parse(row.expires_at) <= Date.now() ? `expired ${row.expires_at}` : 'active',
      describePolicy(row),
      String(row.requests),
      row.audio_seconds.toFixed(1),
      String(row.characters),
    ]),
  ];
  const widths = table[0]!.map((_, column) => Math.max(...table.map((cells) => cells[column]!.length)));
  return `${table
    .map((cells) =>
      cells
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')}\n`;
}

function describePolicy(row: ApiKeyInfo): string {
  const parts = [
    row.admin ? 'admin' : '',
    row.rpm === null ? '' : `${row.rpm}/min`,
    row.models === null ? '' : `models ${(JSON.parse(row.models) as string[]).join(',')}`,
    row.expires_at === null ? '' : `until ${row.expires_at}`,
  ].filter((part) => part !== '');
  return parts.join('; ') || 'all models, no limit';
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
