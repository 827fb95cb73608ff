/**
 * The transfer limits of `download-models`, overridable by environment variables (seconds, and
 * bytes per second for the rate), so a slow link can loosen them and tests can shrink them.
 * The defaults and why: docs/models.md, "Slow and hostile mirrors".
 */
import type { HubClientOptions } from './hub-client.js';
import { InstallError } from './install-errors.js';

type Limits = Partial<Omit<HubClientOptions, 'hubUrl'>>;

const VARIABLES = [
  ['DOWNLOAD_CONNECT_TIMEOUT', 'connectTimeoutMs', 1000],
  ['DOWNLOAD_IDLE_TIMEOUT', 'idleTimeoutMs', 1000],
  ['DOWNLOAD_MIN_RATE', 'minBytesPerSecond', 1],
  ['DOWNLOAD_RATE_WINDOW', 'rateWindowMs', 1000],
  ['DOWNLOAD_API_TIMEOUT', 'apiTimeoutMs', 1000],
] as const;

/** The limits the environment sets; a value that is not a positive number (0 for the rate) is refused. */
export function transferLimitsFromEnv(env: Record<string, string | undefined>): Limits {
  const limits: Limits = {};
  for (const [name, option, scale] of VARIABLES) {
    const text = env[name];
    if (text === undefined || text === '') continue;
    const value = Number(text);
    const allowZero = option === 'minBytesPerSecond';
    if (!Number.isFinite(value) || value < 0 || (value === 0 && !allowZero)) {
      throw new InstallError(
        `${name} must be a ${allowZero ? 'number of bytes per second (0 turns the check off)' : 'positive number of seconds'}, got ${JSON.stringify(text)}`,
      );
    }
    limits[option] = value * scale;
  }
  return limits;
}
