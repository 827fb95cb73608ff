/**
 * Builds the real app on a real SQLite database (a temp file, so restart tests can reopen it)
 * and a model registry over a chosen manifest, and gives tests a supertest agent. The product's
 * engines load each model once per mocha process (shared-engines.ts), and one request validator
 * serves every app; the database, registry and app are each test's own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InferenceApp } from '../../src/http/create-app.js';
import type { Kysely } from 'kysely';
import supertest from 'supertest';
import { loadConfig, type Config, type Limits } from '../../src/config/load-config.js';
import { createApp } from '../../src/http/create-app.js';
import { createRequestValidator } from '../../src/http/validation.js';
import type { Engine } from '../../src/inference/engine.js';
import { ENGINES } from '../../src/inference/engines.js';
import type { Manifest } from '../../src/inference/manifest.js';
import { ModelRegistry, type ModelRegistryOptions } from '../../src/inference/model-registry.js';
import { configureRuntime } from '../../src/inference/runtime.js';
import type { Redis } from 'ioredis';
import { createLogger, type Logger } from '../../src/logger.js';
import { sharedEngines } from './shared-engines.js';
import { freshPostgresSchema, type TestDatabaseKind } from './test-databases.js';
import type { Database } from '../../src/users/database.js';
import { openDatabase } from '../../src/users/open-database.js';

export const TEST_API_KEY = 'test-key-0123456789abcdef';

/**
 * One request validator for every app of the mocha process: compiling each route's schema is most
 * of what building an app costs (~0.1 CPU-s), and many tests build one each.
 */
const VALIDATOR = createRequestValidator();

export interface TestAppOptions {
  manifest?: Manifest;
  modelsDir?: string;
  engines?: Readonly<Record<string, Engine>>;
  /**
   * false: this app's registry loads its own models and disposing them frees them, for tests
   * whose subject is the memory a model takes or gives back (default: shared, shared-engines.ts).
   */
  shareModels?: boolean;
  env?: Record<string, string>;
  /** Overrides of the built-in limits (they are not read from the environment). */
  limits?: Partial<Limits>;
  /** Reuse an existing database file (restart tests). */
  databasePath?: string;
  /** How long a write waits for another process's lock (openDatabase's option). */
  busyDeadlineMs?: number;
  /** The app's logger (default: silent). */
  logger?: Logger;
  /** Redis for shared rate limits (a unique namespace per app is used). */
  redis?: Redis;
  /** Lifecycle options of the model registry (idle time-out, memory budget, clock). */
  registry?: Partial<Omit<ModelRegistryOptions, 'manifest' | 'modelsDir' | 'engines'>>;
  /** `postgres`: a fresh schema on TEST_POSTGRES_URL (test-databases.ts) instead of a SQLite file. */
  database?: TestDatabaseKind;
  /** The clock API keys, files and batches expire by. */
  now?: () => Date;
}

export interface TestApp {
  request: supertest.Agent;
  /** The Koa app itself, for tests that need a real listening server (connection reuse). */
  app: InferenceApp;
  db: Kysely<Database>;
  models: ModelRegistry;
  config: Config;
  databasePath: string;
  /** Closes models and database; removes the temp folder unless `keepFiles`. */
  close(options?: { keepFiles?: boolean }): Promise<void>;
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dir = mkdtempSync(join(tmpdir(), 'lis-test-'));
  const postgres = options.database === 'postgres' ? await freshPostgresSchema() : undefined;
  const databasePath = postgres?.url ?? options.databasePath ?? join(dir, 'app.db');
  const modelsDir = options.modelsDir ?? join(dir, 'models');
  const loaded = loadConfig({
    DATABASE_URL: postgres ? databasePath : `sqlite:${databasePath}`,
    MODELS_DIR: modelsDir,
    FILES_DIR: join(dir, 'files'),
    API_KEYS: TEST_API_KEY,
    LOG_LEVEL: 'silent',
    ...options.env,
  });
  const config: Config = { ...loaded, limits: { ...loaded.limits, ...options.limits } };
  configureRuntime({ modelsDir });
  const db = await openDatabase(databasePath, options.busyDeadlineMs === undefined ? {} : { busyDeadlineMs: options.busyDeadlineMs });
  const models = new ModelRegistry({
    manifest: options.manifest ?? { models: [] },
    modelsDir,
    engines: options.shareModels === false ? (options.engines ?? ENGINES) : sharedEngines(options.engines ?? ENGINES),
    logLevel: config.logLevel,
    ...options.registry,
  });
  const app = createApp({
    db,
    models,
    config,
    logger: options.logger ?? createLogger('silent'),
    redis: options.redis,
    rateLimitPrefix: `test-${databasePath}`,
    now: options.now,
    validator: VALIDATOR,
  });
  return {
    request: supertest.agent(app.callback()),
    app,
    db,
    models,
    config,
    databasePath,
    async close({ keepFiles = false } = {}) {
      await app.dispose();
      await models.close();
      await db.destroy();
      await postgres?.drop();
      if (!keepFiles) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const bearer = (key = TEST_API_KEY) => `Bearer ${key}`;
