/**
 * Resident memory of the process before and after loading minilm-sentiment and minilm-topics (both
 * embedding-classifier on all-MiniLM-L6-v2), one classification each so every session has run once.
 * BENCH_SHARED=0 gives minilm-topics a different maxBatchSize, which keeps it off the shared
 * embedder: that is the layout before entries on one base model shared their workers.
 *
 * Run: npx tsx scripts/bench/classification-memory.ts  (and again with BENCH_SHARED=0). One process
 * per run, so each starts from the same baseline.
 */
import { join, resolve } from 'node:path';
import { embeddingClassifier } from '../../src/inference/text-classification/embedding-classifier.js';
import { readManifest, type ManifestEntry } from '../../src/inference/manifest.js';
import { configureRuntime } from '../../src/inference/runtime.js';

const modelsDir = resolve(process.env.MODELS_DIR ?? 'models');
const shared = process.env.BENCH_SHARED !== '0';
const megabytes = () => Math.round(process.memoryUsage().rss / 2 ** 20);

configureRuntime({ modelsDir });
const manifest = await readManifest(join(modelsDir, 'models.json'));
const entry = (id: string): ManifestEntry => {
  const found = manifest.models.find((model) => model.id === id);
  if (!found) throw new Error(`no ${id} in the manifest`);
  return found;
};
const topics = entry('minilm-topics');
const topicsEntry = shared ? topics : { ...topics, options: { ...topics.options, maxBatchSize: 31 } };

const before = megabytes();
const loaded = [];
const steps: string[] = [`before: ${before} MB`];
for (const model of [entry('minilm-sentiment'), topicsEntry]) {
  const classifier = await embeddingClassifier.load(model, { modelDir: join(modelsDir, model.id), modelsDir });
  await classifier.classify('The service was quick and the food was great.');
  loaded.push(classifier);
  steps.push(`+${model.id}: ${megabytes()} MB (+${megabytes() - before})`);
}
console.log(`${shared ? 'shared' : 'separate'}: ${steps.join(', ')}`);
await Promise.all(loaded.map((classifier) => classifier.dispose()));
