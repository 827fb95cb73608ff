/** Where the committed random-weight classification fixtures live, and a context to load them. */
import { join, resolve } from 'node:path';
import type { EngineContext } from '../../../src/inference/engine.js';
import type { ManifestEntry } from '../../../src/inference/manifest.js';

export const FIXTURE_MODELS_DIR = resolve('test/fixtures/models');

export function fixtureContext(id: string): EngineContext {
  return { modelDir: join(FIXTURE_MODELS_DIR, id), modelsDir: FIXTURE_MODELS_DIR };
}

/** A manifest entry for a fixture; one worker per model unless the test asks for more (start-up is the slow part). */
export function entry(id: string, engine: string, options: Record<string, unknown> = {}): ManifestEntry {
  return { id, task: 'text-classification', engine, description: 'fixture', license: 'test', options: { workers: 1, ...options } };
}

export function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
