/**
 * One client on a quiet machine, estimated on a busy one: for each of the first BENCH_TEXTS SST-2
 * texts (default 10), its fastest of BENCH_RUNS one-at-a-time classifications (default 60, in 3
 * interleaved rounds of ours then Python), on
 * the two sessions BatchModel chooses between for a lone request (the solo session: all threads,
 * spinning; a one-thread session), against the same for the Python baseline (one session with
 * the same thread total, scripts/bench/baselines/classification_ort.py). Other work on a shared
 * machine only ever slows a run down, so a text's fastest run is its least disturbed one; the
 * mean of those is near what an idle machine gives, where `npm run bench:text`'s throughput
 * rounds mostly measure the other work. Ours goes through the same path as minilm-sentiment's
 * classify(): micro-batcher, worker thread (tokeniser, ONNX, pooling), the trained head.
 *
 * Run: npx tsx scripts/bench/classification-lone.ts. Env: BENCH_THREADS (default 2), BENCH_TEXTS,
 * BENCH_RUNS, MODELS_DIR, EVAL_DIR, TOOLS_PYTHON.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readManifest } from '../../src/inference/manifest.js';
import { BatchModel } from '../../src/inference/sentence-encoder/batch-model.js';
import type { EmbeddingClassifierOptions } from '../../src/inference/text-classification/classifier-options.js';
import { sortedLabels } from '../../src/inference/text-classification/label-scores.js';
import { headConfidences, linearHead } from '../../src/inference/text-classification/linear-head.js';
import { SentenceEmbedder } from '../../src/inference/sentence-encoder/sentence-embedder.js';

const MODEL = 'minilm-sentiment';
const THREADS = Number(process.env.BENCH_THREADS ?? 2);
const TEXTS = Number(process.env.BENCH_TEXTS ?? 10);
const RUNS = Number(process.env.BENCH_RUNS ?? 60);
/** The runs are split into this many interleaved rounds (ours, then Python), so both sides see the same spells of load. */
const ROUNDS = 3;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const modelsDir = resolve(process.env.MODELS_DIR ?? join(root, 'models'));
const textsFile = join(process.env.EVAL_DIR ?? resolve(root, '../shared/eval'), 'classification/sst2_validation_300.tsv');
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

function toolsPython(): string {
  if (process.env.TOOLS_PYTHON) return process.env.TOOLS_PYTHON;
  const venv = join(root, '.cache/venv/bin/python');
  return existsSync(venv) ? venv : execFileSync('bash', [join(root, 'scripts/tools/setup-venv.sh')], { encoding: 'utf8' }).trim();
}

const loadBefore = load();
const manifestPath = join(modelsDir, 'models.json');
const entry = (await readManifest(manifestPath)).models.find((model) => model.id === MODEL);
if (!entry) throw new Error(`${MODEL} is not in ${manifestPath}`);
const options = entry.options as EmbeddingClassifierOptions;
const head = linearHead(options.head);
if (!head || !options.labels || !options.baseModel) throw new Error(`${MODEL} should have a head, labels and a baseModel`);
const labels = options.labels.map((label) => (typeof label === 'string' ? label : label.label));
const texts = readFileSync(textsFile, 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => line.slice(0, line.lastIndexOf('\t')))
  .slice(0, TEXTS);
const dir = join(modelsDir, options.baseModel);

/** A one-worker model with the given session, behind the same micro-batcher and head as the engine. */
async function side(threads: number, spinning: boolean) {
  const init = { modelsDir, dir, head: 'feature-extraction' as const, dtype: 'fp32' as const, threads, spinning, maxBatchSize: 32, pooling: 'mean' as const };
  const embedder = new SentenceEmbedder(await BatchModel.start(init, MODEL), { maxBatchSize: 32, maxWaitMs: 0, maxInFlight: 1 });
  const classify = async (text: string) => sortedLabels(labels, headConfidences(head!, await embedder.embed(text)));
  return { embedder, classify, fastest: texts.map(() => Infinity) };
}

const sides = { [`solo (${THREADS} threads, spinning)`]: await side(THREADS, true), 'one thread': await side(1, false) };
for (const { classify } of Object.values(sides)) for (const text of texts) await classify(text); // warm-up
const script = join(root, 'scripts/bench/baselines/classification_ort.py');
const python = toolsPython();
let baselineFastest = texts.map(() => Infinity);
for (let round = 0; round < ROUNDS; round++) {
  for (let run = 0; run < RUNS / ROUNDS; run++) {
    for (const { classify, fastest } of Object.values(sides)) {
      for (const [index, text] of texts.entries()) {
        const sent = performance.now();
        await classify(text);
        fastest[index] = Math.min(fastest[index] as number, performance.now() - sent);
      }
    }
  }
  const baseline = spawnSync(python, [script, dir, manifestPath, MODEL, textsFile, String(THREADS), '1', '1'], {
    encoding: 'utf8',
    timeout: 600_000,
    env: { ...process.env, FASTEST_TEXTS: String(TEXTS), FASTEST_RUNS: String(Math.ceil(RUNS / ROUNDS)) },
  });
  if (baseline.status !== 0) throw new Error(`Python baseline failed: ${baseline.stderr || baseline.error}`);
  const fastest = JSON.parse(baseline.stdout.trim().split('\n').pop() as string).fastest_ms as number[];
  baselineFastest = baselineFastest.map((ms, index) => Math.min(ms, fastest[index] as number));
}
for (const { embedder } of Object.values(sides)) await embedder.dispose();
const baselineMs = mean(baselineFastest);

console.log(`${MODEL}, one client: mean over ${TEXTS} texts of each text's fastest of ${RUNS} runs; load average ${loadBefore} before, ${load()} after`);
for (const [name, { fastest }] of Object.entries(sides)) {
  const ms = mean(fastest);
  console.log(`ours ${name}: ${ms.toFixed(2)} ms (${(baselineMs / ms).toFixed(2)}x)`);
}
console.log(`Python ORT 1x${THREADS}: ${baselineMs.toFixed(2)} ms`);
process.exit(0);
