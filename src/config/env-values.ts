/**
 * Reading one environment variable's value: each parser names the variable and the value it
 * refused in its ConfigError, so a bad setting stops the server with one line that says what to fix.
 */

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

/** A whole number from 1 to `max`, or `fallback` when the variable is unset. */
export function parseWhole(name: string, value: string | undefined, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!/^\d+$/.test(value.trim()) || number < 1 || number > max) {
    throw new ConfigError(`${name} must be a whole number from 1 to ${max}, got "${value}"`);
  }
  return number;
}

/** Seconds (fractions allowed), or -1 for never. */
export function parseIdleTtl(value: string): number {
  const seconds = Number(value);
  if (value.trim() === '' || !Number.isFinite(seconds) || (seconds < 0 && seconds !== -1)) {
    throw new ConfigError(`MODEL_IDLE_TTL must be a number of seconds (0 or more), or -1 for never, got "${value}"`);
  }
  return seconds;
}

const BYTE_UNITS: Readonly<Record<string, number>> = Object.freeze({
  '': 1,
  B: 1,
  KB: 1e3,
  MB: 1e6,
  GB: 1e9,
  TB: 1e12,
  KIB: 1024,
  MIB: 1024 ** 2,
  GIB: 1024 ** 3,
  TIB: 1024 ** 4,
});

/** `6GB`, `512MB`, `1.5GiB` or a number of bytes; empty: undefined (no budget). */
export function parseBytes(name: string, value: string): number | undefined {
  if (value.trim() === '') return undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*$/.exec(value);
  const unit = BYTE_UNITS[match?.[2]?.toUpperCase() ?? 'X'];
  if (!match || unit === undefined || Number(match[1]) <= 0) {
    throw new ConfigError(
      `${name} must be a size such as 6GB, 512MB or 1.5GiB (KB, MB, GB, TB in powers of 1000; KiB, MiB, GiB, TiB in powers of 1024), got "${value}"`,
    );
  }
  return Math.round(Number(match[1]) * unit);
}

export function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT must be an integer between 0 and 65535, got "${value}"`);
  }
  return port;
}

export function nonEmpty(name: string, value: string): string {
  if (value.trim() === '') throw new ConfigError(`${name} must not be empty`);
  return value;
}

export function parseDatabaseUrl(value: string): string {
  if (/^postgres(ql)?:\/\//.test(value)) {
    try {
      new URL(value);
    } catch {
      throw new ConfigError(`DATABASE_URL is not a valid postgres:// URL: "${value.replace(/:[^:@/]*@/, ':***@')}"`);
    }
    return value;
  }
  const match = /^sqlite:(.+)$/.exec(value);
  if (!match?.[1]) {
    throw new ConfigError(`DATABASE_URL must look like "sqlite:<path>", "sqlite::memory:" or "postgres://user@host:5432/db", got "${value}"`);
  }
  // Accept the URL spelling sqlite:///abs/path as well as sqlite:relative/path.
  return match[1].replace(/^\/\/(?=\/)/, '');
}

export function parseApiKeys(value: string): string[] {
  const keys = value
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key !== '');
  for (const key of keys) {
    if (key.length < 16) {
      throw new ConfigError('API_KEYS entries must be at least 16 characters long');
    }
  }
  return keys;
}

/** `*`, or a comma-separated list of origins as browsers send them: `scheme://host[:port]`. */
export function parseCorsOrigins(value: string): readonly string[] | '*' {
  if (value.trim() === '*') return '*';
  const origins = value
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || parsed.origin !== origin) {
      throw new ConfigError(
        `CORS_ORIGINS entries must be origins such as https://app.example.org or http://localhost:5173 (no path or trailing slash), got "${origin}"`,
      );
    }
  }
  return Object.freeze(origins);
}

export function parseRedisUrl(value: string | undefined): string | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (!/^rediss?:\/\/[^\s]+$/.test(value)) throw new ConfigError(`REDIS_URL must look like redis://host:6379, got "${value.replace(/:[^:@/]*@/, ':***@')}"`);
  return value;
}

export function parseAliases(value: string): Readonly<Record<string, string>> {
  const aliases: Record<string, string> = {};
  for (const pair of value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')) {
    const match = /^([A-Za-z0-9._-]+)=([A-Za-z0-9._-]+)$/.exec(pair);
    if (!match) throw new ConfigError(`MODEL_ALIASES entries must look like alias=model-id, got "${pair}"`);
    aliases[match[1]!] = match[2]!;
  }
  return Object.freeze(aliases);
}

export function parseSeconds(name: string, value: string, max: number): number {
  const seconds = Number(value);
  if (value.trim() === '' || !Number.isFinite(seconds) || seconds < 0 || seconds > max) {
    throw new ConfigError(`${name} must be a number of seconds from 0 to ${max}, got "${value}"`);
  }
  return seconds;
}

export function parseLogLevel(value: string): LogLevel {
  if (!(LOG_LEVELS as readonly string[]).includes(value)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${value}"`);
  }
  return value as LogLevel;
}
