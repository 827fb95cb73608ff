import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { defaultMaxPending, type Task } from '../inference/tasks.js';
import {
  ConfigError,
  type LogLevel,
  parseWhole,
  parseIdleTtl,
  parseBytes,
  parsePort,
  nonEmpty,
  parseDatabaseUrl,
  parseApiKeys,
  parseCorsOrigins,
  parseRedisUrl,
  parseAliases,
  parseSeconds,
  parseLogLevel,
} from './env-values.js';

/**
 * Configuration is read once, from an env-like record, validated, and frozen.
 * Nothing else in `src/` reads `process.env`.
 */

export { ConfigError, type LogLevel } from './env-values.js';

export interface Config {
  readonly port: number;
  readonly host: string;
  /** Path of the SQLite file, or `:memory:`. */
  readonly databasePath: string;
  /** Keys accepted on /v1 in addition to the ones stored in the database. */
  readonly apiKeys: readonly string[];
  readonly modelsDir: string;
  /**
   * The model manifest. It ships with the code (`models/models.json`), so it does not follow
   * MODELS_DIR: weights may live on another disk while the manifest stays versioned.
   */
  readonly manifestPath: string;
  readonly logLevel: LogLevel;
  /** Browser origins allowed to call the API (CORS_ORIGINS); empty turns CORS off, `'*'` allows any. */
  readonly corsOrigins: readonly string[] | '*';
  /** Redis for what replicas share (per-key rate limits), REDIS_URL; undefined: counted in-process. */
  readonly redisUrl: string | undefined;
  /** After SIGTERM, keep serving this long with /readyz at 503 before closing (SHUTDOWN_DELAY_SECONDS). */
  readonly shutdownDelayMs: number;
  /** Model aliases pinned to one model each (MODEL_ALIASES="whisper-1=whisper-tiny.en,tts-1=…"). */
  readonly modelAliases: Readonly<Record<string, string>>;
  /** Translation model ids the LibreTranslate API tries first for a pair (LIBRETRANSLATE_MODELS). */
  readonly libreTranslateModels: readonly string[];
  /** The model TEI's `POST /` and `GET /info` serve (TEI_MODEL); the default embedding model without it. */
  readonly teiModel: string | undefined;
  readonly limits: Limits;
  /** Seconds a model stays loaded unused before it is unloaded (MODEL_IDLE_TTL); -1: never. */
  readonly modelIdleTtlSeconds: number;
  /** Bytes all loaded models may take (MODELS_MAX_MEMORY, e.g. `6GB`); undefined: no budget. */
  readonly modelsMaxMemoryBytes: number | undefined;
  /** Models (ids or aliases) loaded at start (PRELOAD_MODELS); /readyz waits for them. */
  readonly preloadModels: readonly string[];
  /** The Files and Batch API (src/batches). */
  readonly batches: BatchConfig;
}

interface BatchConfig {
  /** Where uploaded and generated files are kept (FILES_DIR). */
  readonly filesDir: string;
  /** Largest file one upload may store (FILES_MAX_MB); larger is a 413 while reading. */
  readonly maxFileBytes: number;
  /** All stored files together (FILES_MAX_TOTAL_MB); an upload past it is a 413. */
  readonly maxTotalBytes: number;
  /** Batch lines one process runs at once (BATCH_CONCURRENCY); interactive requests take turns with them. */
  readonly concurrency: number;
  /** A claimed line whose runner stops renewing it (killed) goes back to the queue after this (BATCH_LEASE_SECONDS). */
  readonly leaseSeconds: number;
}

export interface Limits {
  /** Largest JSON (or form) body but /v1/embeddings' (MAX_JSON_MB). */
  readonly maxJsonBytes: number;
  /** Largest audio upload (MAX_AUDIO_MB); larger is a 413 while reading. */
  readonly maxAudioBytes: number;
  readonly maxClassificationChars: number;
  /** All texts of one /v1/embeddings request together, in characters; more is a 413. */
  readonly maxEmbeddingChars: number;
  /** The body of /v1/embeddings, which carries batches of up to 2048 texts. */
  readonly maxEmbeddingBodyBytes: number;
  readonly maxTranslationChars: number;
  readonly maxSpeechInputChars: number;
  /** Decoded audio longer than this is rejected with 413 (speech to text; MAX_AUDIO_MINUTES). */
  readonly maxAudioSeconds: number;
  /**
   * Inference requests per task held at once (running, queued or uploading); more get 503
   * server_busy. Defaults: each task's `maxPending` (inference/tasks.ts).
   */
  readonly maxPendingRequests: Readonly<Record<Task, number>>;
  readonly timeouts: ClientTimeouts;
  /** Live transcription over WebSocket (/v1/realtime). */
  readonly realtime: RealtimeLimits;
}

/**
 * How slow a client may be before its connection is dropped, so slow or stalled clients cannot
 * hold connections, admission slots or memory (docs/security.md).
 */
export interface ClientTimeouts {
  /** Node's headersTimeout: the request line and headers must arrive within this. */
  readonly headersMs: number;
  /** Node's requestTimeout: a backstop for receiving the whole request, body included. */
  readonly requestMs: number;
  /** Node's keepAliveTimeout: an idle kept-alive connection is closed after this. */
  readonly keepAliveMs: number;
  /** A body that sends no byte for this long is cut off with 408. */
  readonly bodyIdleMs: number;
  /** After `bodyRateGraceMs`, a body averaging fewer bytes per second than this is cut off with 408. */
  readonly bodyMinBytesPerSecond: number;
  readonly bodyRateGraceMs: number;
  /** A response the client does not read (no byte accepted) for this long is abandoned. */
  readonly responseStallMs: number;
}

/** Bounds of live transcription sessions (src/http/realtime). */
export interface RealtimeLimits {
  /** Open sessions at once; the next is closed at once with a reason. */
  readonly maxSessions: number;
  /** Open sessions of one API key (each static key counts on its own); the next upgrade answers 429. */
  readonly maxSessionsPerKey: number;
  /** A session is closed this long after it opened, however active, so no client keeps a slot for good. */
  readonly maxSessionSeconds: number;
  /** How often an open session's key is verified again between turns (revoked or expired: closed). */
  readonly keyCheckMs: number;
  /** Largest WebSocket message (an append of base64 audio). */
  readonly maxMessageBytes: number;
  /** Audio held uncommitted (manual commit mode); more is refused with an error event. */
  readonly maxBufferSeconds: number;
  /** A server-VAD turn longer than this is cut and transcribed, so a monologue still gets text. */
  readonly maxTurnSeconds: number;
  /** Committed turns waiting for transcription before the session stops reading the socket. */
  readonly maxPendingItems: number;
  /** A session that sends nothing for this long is closed. */
  readonly idleMs: number;
  /**
   * Bytes a session may hold unprocessed (messages received but not yet handled, audio buffered,
   * audio of turns awaiting transcription; session-budget.ts) before its socket stops being read.
   */
  readonly sessionPauseBytes: number;
  /** Past this many bytes held, the session is closed (1008) with an error event. */
  readonly sessionMaxBytes: number;
  /** Bytes all sessions together may hold before every session with work queued stops being read. */
  readonly totalPauseBytes: number;
}

/** The variable that sets each limit the environment can raise; a 413 past one names it. */
export const LIMIT_SETTINGS = {
  maxJsonBytes: 'MAX_JSON_MB',
  maxAudioBytes: 'MAX_AUDIO_MB',
  maxAudioSeconds: 'MAX_AUDIO_MINUTES',
} as const satisfies Partial<Record<keyof Limits, string>>;

export const DEFAULT_LIMITS: Limits = Object.freeze({
  maxJsonBytes: 1024 * 1024,
  // An hour of 16-kHz 16-bit mono WAV is 115 MB; an hour of MP3 at 128 kbit/s is 58 MB.
  maxAudioBytes: 128 * 1024 * 1024,
  maxClassificationChars: 10_000,
  // About OpenAI's own 300,000 tokens per request, at 3 to 4 characters a token.
  maxEmbeddingChars: 1_000_000,
  // A million characters as JSON, with room for non-ASCII text (up to 3 bytes a character in
  // UTF-8, 6 as a \u escape) and 2048 inputs' quotes and commas.
  maxEmbeddingBodyBytes: 8 * 1024 * 1024,
  maxTranslationChars: 20_000,
  maxSpeechInputChars: 5_000,
  // Held as 16-bit PCM while transcribed: 115 MB for an hour at 16 kHz (docs/security.md).
  maxAudioSeconds: 60 * 60,
  // Each task's own bound, from its row of the task table.
  maxPendingRequests: defaultMaxPending(),
  realtime: Object.freeze({
    maxSessions: 8,
    // Well under maxSessions, so one key (a leaked one, a runaway client) cannot take every slot.
    maxSessionsPerKey: 2,
    maxSessionSeconds: 60 * 60,
    // Turns verify the key too; this catches a session that streams audio without ending a turn.
    keyCheckMs: 10_000,
    // An append of 1 MiB of base64 is ~16 s of 24-kHz PCM16; OpenAI's own cap is 15 MiB.
    maxMessageBytes: 1024 * 1024,
    maxBufferSeconds: 120,
    maxTurnSeconds: 30,
    maxPendingItems: 4,
    idleMs: 60_000,
    // Room for the longest uncommitted buffer (120 s is 7.7 MB as 16-kHz Float32) and a message.
    // A paused session grows only by what it had already received, so the close bound is a
    // backstop; 8 sessions hold at most 8 × 32 MiB even then.
    sessionPauseBytes: 8 * 1024 * 1024,
    sessionMaxBytes: 32 * 1024 * 1024,
    totalPauseBytes: 32 * 1024 * 1024,
  }),
  timeouts: Object.freeze({
    headersMs: 15_000,
    // 25 MB at the minimum rate below takes 13 minutes, a 128-MB hour of WAV needs ≥ 146 kB/s;
    // the body checks usually act first.
    requestMs: 15 * 60_000,
    keepAliveMs: 5_000,
    bodyIdleMs: 10_000,
    bodyMinBytesPerSecond: 32 * 1024,
    bodyRateGraceMs: 10_000,
    responseStallMs: 30_000,
  }),
});

export function loadConfig(env: Record<string, string | undefined>): Config {
  const databasePath = parseDatabaseUrl(env.DATABASE_URL ?? 'sqlite:data/app.db');
  return Object.freeze({
    port: parsePort(env.PORT ?? '3000'),
    host: nonEmpty('HOST', env.HOST ?? '127.0.0.1'),
    databasePath,
    apiKeys: Object.freeze(parseApiKeys(env.API_KEYS ?? '')),
    modelsDir: nonEmpty('MODELS_DIR', env.MODELS_DIR ?? 'models'),
    manifestPath: nonEmpty('MODELS_MANIFEST', env.MODELS_MANIFEST ?? 'models/models.json'),
    logLevel: parseLogLevel(env.LOG_LEVEL ?? 'info'),
    corsOrigins: parseCorsOrigins(env.CORS_ORIGINS ?? ''),
    modelAliases: parseAliases(env.MODEL_ALIASES ?? ''),
    redisUrl: parseRedisUrl(env.REDIS_URL),
    shutdownDelayMs: parseSeconds('SHUTDOWN_DELAY_SECONDS', env.SHUTDOWN_DELAY_SECONDS ?? '0', 300) * 1000,
    libreTranslateModels: Object.freeze(
      (env.LIBRETRANSLATE_MODELS ?? '')
        .split(',')
        .map((id) => id.trim())
        .filter((id) => id !== ''),
    ),
    teiModel: env.TEI_MODEL?.trim() || undefined,
    limits: envLimits(env),
    modelIdleTtlSeconds: parseIdleTtl(env.MODEL_IDLE_TTL ?? '-1'),
    modelsMaxMemoryBytes: parseBytes('MODELS_MAX_MEMORY', env.MODELS_MAX_MEMORY ?? ''),
    preloadModels: Object.freeze(
      (env.PRELOAD_MODELS ?? '')
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== ''),
    ),
    batches: Object.freeze({
      filesDir: nonEmpty('FILES_DIR', env.FILES_DIR ?? defaultFilesDir(databasePath)),
      maxFileBytes: parseWhole('FILES_MAX_MB', env.FILES_MAX_MB, 512, 100_000) * 1024 * 1024,
      maxTotalBytes: parseWhole('FILES_MAX_TOTAL_MB', env.FILES_MAX_TOTAL_MB, 10_240, 10_000_000) * 1024 * 1024,
      concurrency: parseWhole('BATCH_CONCURRENCY', env.BATCH_CONCURRENCY, 16, 256),
      leaseSeconds: parseWhole('BATCH_LEASE_SECONDS', env.BATCH_LEASE_SECONDS, 30, 3600),
    }),
  });
}

/**
 * Files live beside the SQLite database they are listed in (data/app.db: data/files), so the two
 * move, are backed up and are thrown away together; an in-memory database's files are temporary.
 * On PostgreSQL, `data/files`: replicas must set FILES_DIR to one folder they all share.
 */
function defaultFilesDir(databasePath: string): string {
  if (/^postgres(ql)?:\/\//.test(databasePath)) return 'data/files';
  if (databasePath === ':memory:') return join(tmpdir(), `lis-files-${process.pid}`);
  return join(dirname(databasePath), 'files');
}

/** The realtime limits an operator sets (the rest bound memory per session and stay as they are). */
const REALTIME_VARIABLES = ['REALTIME_MAX_SESSIONS', 'REALTIME_MAX_SESSIONS_PER_KEY', 'REALTIME_SESSION_MINUTES', 'REALTIME_IDLE_SECONDS'] as const;

/**
 * DEFAULT_LIMITS with the limits the environment sets: body and audio sizes (LIMIT_SETTINGS) and
 * realtime sessions (REALTIME_*).
 */
function envLimits(env: Record<string, string | undefined>): Limits {
  const { maxJsonBytes: json, maxAudioBytes: audio, maxAudioSeconds: minutes } = LIMIT_SETTINGS;
  const bodySet = env[json] !== undefined || env[audio] !== undefined || env[minutes] !== undefined;
  const realtimeSet = REALTIME_VARIABLES.some((name) => env[name] !== undefined);
  if (!bodySet && !realtimeSet) return DEFAULT_LIMITS;
  const MiB = 1024 * 1024;
  return Object.freeze({
    ...DEFAULT_LIMITS,
    // A JSON body is parsed whole in memory, once per request in flight.
    maxJsonBytes: parseWhole(json, env[json], DEFAULT_LIMITS.maxJsonBytes / MiB, 64) * MiB,
    maxAudioBytes: parseWhole(audio, env[audio], DEFAULT_LIMITS.maxAudioBytes / MiB, 1024) * MiB,
    maxAudioSeconds: parseWhole(minutes, env[minutes], DEFAULT_LIMITS.maxAudioSeconds / 60, 240) * 60,
    realtime: realtimeSet ? realtimeLimits(env) : DEFAULT_LIMITS.realtime,
  });
}

function realtimeLimits(env: Record<string, string | undefined>): RealtimeLimits {
  const defaults = DEFAULT_LIMITS.realtime;
  // Each open session may hold up to sessionMaxBytes (32 MiB) before it is closed: the cap bounds that memory too.
  const maxSessions = parseWhole('REALTIME_MAX_SESSIONS', env.REALTIME_MAX_SESSIONS, defaults.maxSessions, 64);
  const perKeyDefault = Math.min(defaults.maxSessionsPerKey, maxSessions);
  const maxSessionsPerKey = parseWhole('REALTIME_MAX_SESSIONS_PER_KEY', env.REALTIME_MAX_SESSIONS_PER_KEY, perKeyDefault, 64);
  if (maxSessionsPerKey > maxSessions) {
    throw new ConfigError(`REALTIME_MAX_SESSIONS_PER_KEY (${maxSessionsPerKey}) must not be more than REALTIME_MAX_SESSIONS (${maxSessions})`);
  }
  return Object.freeze({
    ...defaults,
    maxSessions,
    maxSessionsPerKey,
    maxSessionSeconds: parseWhole('REALTIME_SESSION_MINUTES', env.REALTIME_SESSION_MINUTES, defaults.maxSessionSeconds / 60, 24 * 60) * 60,
    idleMs: parseWhole('REALTIME_IDLE_SECONDS', env.REALTIME_IDLE_SECONDS, defaults.idleMs / 1000, 3600) * 1000,
  });
}
