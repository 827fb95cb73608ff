/**
 * The random-weight fixture models (test/fixtures/models) as the manifests of tests name them:
 * one entry each, so a test lists the ones it serves instead of spelling each out again.
 */
import { fileURLToPath } from 'node:url';
import type { ManifestEntry } from '../../src/inference/manifest.js';

export const FIXTURE_MODELS_DIR = fileURLToPath(new URL('../fixtures/models/', import.meta.url));

export const FIXTURE_MODELS = {
  sentiment: {
    id: 'bert-sentiment-random',
    task: 'text-classification',
    engine: 'transformers-text-classification',
    description: 'fixture',
    license: 'test',
    options: { labels: ['negative', 'positive'], workers: 1 },
  },
  nli: {
    id: 'nli-random',
    task: 'text-classification',
    engine: 'transformers-zero-shot',
    description: 'fixture',
    license: 'test',
    options: { labels: ['sports', 'politics'], workers: 1 },
  },
  marian: {
    id: 'marian-en-es-random',
    task: 'translation',
    engine: 'transformers-translation',
    description: 'fixture',
    license: 'MIT',
    options: { family: 'marian', source: 'en', target: 'es' },
  },
  /** In the manifest, not on disk. */
  sentimentAbsent: {
    id: 'sentiment-absent',
    task: 'text-classification',
    engine: 'transformers-text-classification',
    description: 'absent',
    license: 'test',
    installCommand: 'npm run test-models',
  },
} satisfies Record<string, ManifestEntry>;
