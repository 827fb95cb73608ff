/** Manifest entries listed but not installed: routes resolve them, and fail (or refuse the body) before loading anything. */
import type { ManifestEntry } from '../../src/inference/manifest.js';

/** An embedding model and a classifier, the two TEI's routes serve. */
export const NOT_INSTALLED_TEXT_MODELS: readonly ManifestEntry[] = [
  { id: 'embedder', task: 'embeddings', engine: 'sentence-embedding', description: 'not installed', license: 'test' },
  {
    id: 'classifier',
    task: 'text-classification',
    engine: 'transformers-text-classification',
    description: 'not installed',
    license: 'test',
    options: { labels: ['negative', 'positive'] },
  },
];
