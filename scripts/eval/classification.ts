/**
 * npm run eval:text (classification part): accuracy of the installed classifiers on the shared
 * evaluation sets. Loads models exactly as the server does (manifest + ENGINES + registry) and
 * sends every row through classify(), 32 at a time so the micro-batcher is exercised too.
 *
 *   minilm-sentiment on SST-2 validation (300 rows)  goal >= 0.75
 *   minilm-topics    on AG News test (400 rows)      goal >= 0.60
 *
 * Env: MODELS_DIR, MODELS_MANIFEST (as the server), EVAL_DIR (the folder of the evaluation sets, e.g. ../shared/eval beside the
 * repository). `--strict` exits 1 when a goal is missed. Install the models with `npm run test-models`.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { loadConfig } from '../../src/config/load-config.js';
import { ENGINES } from '../../src/inference/engines.js';
import { readManifest } from '../../src/inference/manifest.js';
import { ModelRegistry } from '../../src/inference/model-registry.js';
import { configureRuntime } from '../../src/inference/runtime.js';
import { evalSetDir } from './lib/eval-data.js';

interface EvalSet {
  model: string;
  file: string;
  goal: number;
}

const SETS: EvalSet[] = [
  { model: 'minilm-sentiment', file: 'classification/sst2_validation_300.tsv', goal: 0.75 },
  { model: 'minilm-topics', file: 'classification/agnews_test_400.tsv', goal: 0.6 },
];
const CONCURRENCY = 32;

const evalDir = dirname(evalSetDir('classification'));

async function readRows(path: string): Promise<Array<{ text: string; label: string }>> {
  const [header, ...lines] = (await readFile(path, 'utf8')).split('\n').filter((line) => line.trim() !== '');
  if (header !== 'text\tlabel') throw new Error(`${path}: expected a "text<TAB>label" header`);
  return lines.map((line) => {
    const tab = line.lastIndexOf('\t');
    return { text: line.slice(0, tab), label: line.slice(tab + 1) };
  });
}

async function main(): Promise<void> {
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
  configureRuntime({ modelsDir: config.modelsDir });
  const manifest = await readManifest(config.manifestPath);
  const registry = new ModelRegistry({ manifest, modelsDir: config.modelsDir, engines: ENGINES });
  let missed = false;
  try {
    for (const set of SETS) {
      const classifier = await registry.get(set.model, 'text-classification');
      const rows = await readRows(join(evalDir, set.file));
      const started = performance.now();
      const predicted: string[] = [];
      for (let start = 0; start < rows.length; start += CONCURRENCY) {
        const chunk = rows.slice(start, start + CONCURRENCY);
        const answers = await Promise.all(chunk.map((row) => classifier.classify(row.text)));
        predicted.push(...answers.map((labels) => labels[0]?.label ?? ''));
      }
      const seconds = (performance.now() - started) / 1000;
      const correct = rows.filter((row, index) => row.label === predicted[index]).length;
      const accuracy = correct / rows.length;
      missed ||= accuracy < set.goal;
      console.log(
        `${set.model} on ${set.file}: accuracy ${accuracy.toFixed(3)} (${correct}/${rows.length}), ` +
          `goal >= ${set.goal} ${accuracy >= set.goal ? 'PASS' : 'MISS'}  [${(rows.length / seconds).toFixed(0)} texts/s]`,
      );
      for (const label of [...new Set(rows.map((row) => row.label))]) {
        const ofLabel = rows.map((row, index) => ({ row, index })).filter(({ row }) => row.label === label);
        const right = ofLabel.filter(({ index }) => predicted[index] === label).length;
        console.log(`  ${label.padEnd(10)} recall ${(right / ofLabel.length).toFixed(3)} (${right}/${ofLabel.length})`);
      }
    }
    const example = 'a gorgeous, witty, seductive movie';
    const labels = await (await registry.get('minilm-sentiment', 'text-classification')).classify(example);
    console.log(`minilm-sentiment("${example}") = ${JSON.stringify(labels)}`);
  } finally {
    await registry.close();
  }
  if (missed && process.argv.includes('--strict')) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
