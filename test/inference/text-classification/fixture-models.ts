/** Where the committed random-weight classification fixtures live, and a context to load them. */
import { expect } from 'chai';
import { join, resolve } from 'node:path';
import type { EngineContext } from '../../../src/inference/engine.js';
import type { ManifestEntry } from '../../../src/inference/manifest.js';
import type { Classifier, ClassifyOptions } from '../../../src/inference/types.js';

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

/**
 * Sends two requests at once and gives up on the first while it waits for its batch: the
 * first must reject with the signal's reason, the second must still get every label.
 */
export async function expectGivingUpLeavesOthersAnswered(classifier: Classifier, options: ClassifyOptions = {}): Promise<void> {
  const controller = new AbortController();
  const abandoned = classifier.classify('nobody reads this answer', { ...options, signal: controller.signal }).catch((caught: unknown) => caught);
  const kept = classifier.classify('this answer is still wanted', options);
  const reason = new Error('client went away');
  controller.abort(reason);
  expect(await abandoned).to.equal(reason);
  expect((await kept).length).to.be.greaterThan(1);
}
