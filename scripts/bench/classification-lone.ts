/**
 * One client on a quiet machine, estimated on a busy one: for each of the first BENCH_TEXTS SST-2
 * texts (default 10), its fastest of BENCH_RUNS one-at-a-time classifications (default 60, in
 * BENCH_ROUNDS interleaved rounds of ours then Python, default 3; in a round each side runs all its
 * classifications back to back after one unrecorded pass over the texts), on the two sessions BatchModel
 * chooses between for a lone request (the solo session with BatchModel's settings: all threads,
 * spinning, its spin after a run kept but bounded; a one-thread session), against the same for the Python baseline: one session with the same thread total,
 * scripts/bench/baselines/classification_ort.py, on the onnxruntime and tokenizers a user gets
 * from PyPI today (baselines/classification-venv.ts). Other work on a shared machine only ever
 * slows a run down, so a text's fastest run is its least disturbed one; the mean of those is near
 * what an idle machine gives. Ours goes through the same path as minilm-sentiment's classify():
 * micro-batcher, worker thread (tokeniser, ONNX, pooling), the trained head.
 *
 * With --breakdown it also times each step of a lone request on the solo session, each step's
 * fastest per text the same way: the micro-batcher's wait before it calls the model, the hop to
 * the worker (postMessage and the worker waking), the worker's tokeniser, session run and pooling
 * (reported by the worker), the hop back, and the head on the main thread; and Python's
 * tokenizer, run and pooling + head. The steps are timed in separate calls, so their sum is a
 * little under the whole.
 *
 * With --spin-kept it also measures a solo session whose spin after each run is onnxruntime's own,
 * unbounded (Python's default), measured last in each run and followed by a pause, since its
 * spinning threads slow whatever runs right after it; --spin-kept=<µs> bounds that spin instead.
 *
 * With --engine it also measures the engine's own layout: two one-thread workers and the solo
 * session, LoneRunChooser picking between them. Each side prints, besides the mean of the fastest
 * runs, the spread of all its runs (mean, p50, p90, p99, max), and so does Python.
 *
 * Run: npx tsx scripts/bench/classification-lone.ts [--breakdown] [--spin-kept[=µs]] [--engine]. Env: BENCH_THREADS (default 2),
 * BENCH_TEXTS, BENCH_RUNS, BENCH_ROUNDS, BENCH_GAP_MS (idle time before each classification, both sides), MODELS_DIR, EVAL_DIR, BASELINE_PYTHON (skips the venv).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { readManifest } from '../../src/inference/manifest.js';
import { BATCH_MODEL_WORKER, type BatchModelInit, type ForwardStages } from '../../src/inference/sentence-encoder/batch-model-protocol.js';
import { BatchModel, soloInit } from '../../src/inference/sentence-encoder/batch-model.js';
import { MicroBatcher } from '../../src/inference/sentence-encoder/micro-batcher.js';
import { SentenceEmbedder } from '../../src/inference/sentence-encoder/sentence-embedder.js';
import type { EmbeddingClassifierOptions } from '../../src/inference/text-classification/classifier-options.js';
import { sortedLabels } from '../../src/inference/text-classification/label-scores.js';
import { headConfidences, linearHead } from '../../src/inference/text-classification/linear-head.js';
import { ModelWorker } from '../../src/inference/worker/model-worker.js';
import { loadAverage } from '../eval/lib/load-average.js';
import { CLASSIFICATION_BASELINE, classificationBaselinePython } from './baselines/classification-venv.js';
import { evalSetFile } from '../eval/lib/eval-data.js';

const MODEL = 'minilm-sentiment';
const THREADS = Number(process.env.BENCH_THREADS ?? 2);
const TEXTS = Number(process.env.BENCH_TEXTS ?? 10);
const RUNS = Number(process.env.BENCH_RUNS ?? 60);
/** The runs are split into this many interleaved rounds (ours, then Python), so both sides see the same spells of load. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Idle time before each classification (both sides): what a request after a quiet spell pays. */
const GAP_MS = Number(process.env.BENCH_GAP_MS ?? 0);
const BREAKDOWN = process.argv.includes('--breakdown');
/** --spin-kept, or --spin-kept=<µs> to bound the spin after a run (onnxruntime's intra_op.spin_duration_us). */
const SPIN_KEPT_ARG = process.argv.find((arg) => arg === '--spin-kept' || arg.startsWith('--spin-kept='));
const SPIN_KEPT_US = SPIN_KEPT_ARG?.includes('=') ? Number(SPIN_KEPT_ARG.split('=')[1]) : undefined;
const ENGINE_SIDE = process.argv.includes('--engine');
/** Pause after the spin-kept side's runs, longer than onnxruntime's spin after a run. */
const SETTLE_MS = 200;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const modelsDir = resolve(process.env.MODELS_DIR ?? join(root, 'models'));
const textsFile = evalSetFile('classification', 'sst2_validation_300.tsv');
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** Per text, the fastest time seen for each named step; and every time, for the spread. */
class Timings {
  readonly #ms = new Map<string, number[]>();
  readonly #all = new Map<string, number[]>();
  record(step: string, text: number, ms: number): void {
    const times = this.#ms.get(step) ?? Array.from({ length: TEXTS }, () => Infinity);
    times[text] = Math.min(times[text] as number, ms);
    this.#ms.set(step, times);
    const all = this.#all.get(step) ?? [];
    all.push(ms);
    this.#all.set(step, all);
  }
  mean(step: string): number {
    return mean(this.#ms.get(step) ?? [Number.NaN]);
  }
  /** p50 / p90 / p99 / max over every run of `step`, and the mean of all runs. */
  spread(step: string): string {
    const sorted = [...(this.#all.get(step) ?? [Number.NaN])].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
    return `mean ${mean(sorted).toFixed(2)}, p50 ${at(0.5).toFixed(2)}, p90 ${at(0.9).toFixed(2)}, p99 ${at(0.99).toFixed(2)}, max ${(sorted.at(-1) as number).toFixed(2)}`;
  }
}

const loadBefore = loadAverage();
const manifestPath = join(modelsDir, 'models.json');
const entry = (await readManifest(manifestPath)).models.find((model) => model.id === MODEL);
if (!entry) throw new Error(`${MODEL} is not in ${manifestPath}`);
const options = entry.options as EmbeddingClassifierOptions;
const head = linearHead(options.head);
if (!head || !options.labels || !options.baseModel) throw new Error(`${MODEL} should have a head, labels and a baseModel`);
const labels = options.labels.map((label) => (typeof label === 'string' ? label : label.label));
const scoreWithHead = (embedding: Float32Array) => sortedLabels(labels, headConfidences(head, embedding));
const texts = readFileSync(textsFile, 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => line.slice(0, line.lastIndexOf('\t')))
  .slice(0, TEXTS);
const dir = join(modelsDir, options.baseModel);
const python = classificationBaselinePython(root);

const init = (threads: number, spinning: boolean | number, stopSpinningAfterRun = true): BatchModelInit => ({
  modelsDir,
  dir,
  head: 'feature-extraction',
  dtype: 'fp32',
  threads,
  spinning,
  stopSpinningAfterRun,
  maxBatchSize: 32,
  pooling: 'mean',
});

/** A model behind the same micro-batcher and head as the engine. */
function sideOn(model: BatchModel, maxInFlight: number) {
  const embedder = new SentenceEmbedder(model, { maxBatchSize: 32, maxWaitMs: 0, maxInFlight });
  const classify = async (text: string) => scoreWithHead(await embedder.embed(text));
  return { embedder, classify };
}

/** A one-worker model with the given session. */
async function side(threads: number, spinning: boolean | number, stopSpinningAfterRun = true) {
  return sideOn(await BatchModel.start(init(threads, spinning, stopSpinningAfterRun), MODEL), 1);
}

/** The engine's solo session (BatchModel's settings), alone in its model. */
const SOLO_INIT = soloInit(init(THREADS, false), THREADS);
const SOLO = `solo (${THREADS} threads, spinning, bounded spin kept after runs)`;
const SPIN_KEPT = `solo (${THREADS} threads), spin kept after runs${SPIN_KEPT_US ? `, at most ${SPIN_KEPT_US} µs` : ', unbounded'}`;
const ENGINE = `engine layout (2x${THREADS / 2} + solo${THREADS}, chooser)`;
const sides: Record<string, Awaited<ReturnType<typeof side>>> = {
  [SOLO]: sideOn(await BatchModel.start(SOLO_INIT, MODEL), 1),
  'one thread': await side(1, false),
};
// What the engine runs: two one-thread workers and the solo session, LoneRunChooser picking between them.
if (ENGINE_SIDE) sides[ENGINE] = sideOn(await BatchModel.start(init(THREADS / 2, false), MODEL, { workers: 2, soloThreads: THREADS }), 2);
// onnxruntime's own spin-then-sleep after each run, as Python's session does (see BatchModelInit).
// Its threads go on spinning for tens of ms after a run and slow whatever runs next (a first try
// measured the solo side after it ~1.5x slower), so it is opt-in and measured last, then left to settle.
if (SPIN_KEPT_ARG) sides[SPIN_KEPT] = await side(THREADS, SPIN_KEPT_US ?? true, false);
const ours = new Timings();
const python_ = new Timings();

/** The steps of one lone request, each timed on its own (see the header). */
async function breakdownParts() {
  const worker = await ModelWorker.start(BATCH_MODEL_WORKER, { init: SOLO_INIT, modelId: MODEL, name: 'breakdown' });
  let calledAt = 0;
  const batcher = new MicroBatcher<string, number>(
    async (items) => {
      calledAt = performance.now();
      return items.map(() => 0);
    },
    { maxBatchSize: 32, maxWaitMs: 0 },
  );
  const embedding = (await worker.call('forward', { texts: [texts[0] as string] })).data;
  return {
    async measure(index: number, text: string) {
      const submitted = performance.now();
      await batcher.submit(text);
      ours.record('micro-batcher wait', index, calledAt - submitted);
      const sent = performance.now();
      const { stages } = await worker.call('forward', { texts: [text], profile: true });
      const roundTrip = performance.now() - sent;
      const { tokenizeMs, runMs, poolMs, receivedAt, repliedAt } = stages as ForwardStages;
      ours.record('hop to the worker', index, receivedAt - (performance.timeOrigin + sent));
      ours.record('hop back', index, performance.timeOrigin + sent + roundTrip - repliedAt);
      ours.record('worker: tokenize', index, tokenizeMs);
      ours.record('worker: session run', index, runMs);
      ours.record('worker: pool + pack', index, poolMs);
      const headStarted = performance.now();
      scoreWithHead(embedding);
      ours.record('head + sort (main thread)', index, performance.now() - headStarted);
    },
    dispose: () => worker.dispose(),
  };
}
const parts = BREAKDOWN ? await breakdownParts() : undefined;

for (const { classify } of Object.values(sides)) for (const text of texts) await classify(text); // warm-up
const script = join(root, 'scripts/bench/baselines/classification_ort.py');
for (let round = 0; round < ROUNDS; round++) {
  // Each side's runs back to back, after one unrecorded pass, as Python's are in its process: a
  // side measured right after another reads weights the other pushed out of the CPU cache.
  for (const [name, { classify }] of Object.entries(sides)) {
    for (let run = -1; run < RUNS / ROUNDS; run++) {
      for (const [index, text] of texts.entries()) {
        if (GAP_MS > 0) await setTimeout(GAP_MS);
        const sent = performance.now();
        await classify(text);
        if (run >= 0) ours.record(name, index, performance.now() - sent);
      }
    }
    if (name === SPIN_KEPT) await setTimeout(SETTLE_MS);
  }
  for (let run = 0; parts && run < RUNS / ROUNDS; run++) {
    for (const [index, text] of texts.entries()) {
      if (GAP_MS > 0) await setTimeout(GAP_MS);
      await parts.measure(index, text);
    }
  }
  const baseline = spawnSync(python, [script, dir, manifestPath, MODEL, textsFile, String(THREADS), '1', '1'], {
    encoding: 'utf8',
    timeout: 600_000,
    env: { ...process.env, FASTEST_TEXTS: String(TEXTS), FASTEST_RUNS: String(Math.ceil(RUNS / ROUNDS)), FASTEST_GAP_MS: String(GAP_MS) },
  });
  if (baseline.status !== 0) throw new Error(`Python baseline failed: ${baseline.stderr || baseline.error}`);
  const output = JSON.parse(baseline.stdout.trim().split('\n').pop() as string) as { runs_ms: number[]; stages_ms: Record<string, number[]> };
  output.runs_ms.forEach((ms, run) => python_.record('total', run % TEXTS, ms));
  for (const [step, times] of Object.entries(output.stages_ms)) times.forEach((ms, index) => python_.record(step, index, ms));
}
for (const { embedder } of Object.values(sides)) await embedder.dispose();
await parts?.dispose();
const baselineMs = python_.mean('total');

console.log(
  `${MODEL}, one client: mean over ${TEXTS} texts of each text's fastest of ${RUNS} runs in ${ROUNDS} interleaved rounds` +
    `${GAP_MS > 0 ? `, each after ${GAP_MS} ms idle` : ''}; ` +
    `load average ${loadBefore} before, ${loadAverage()} after`,
);
for (const name of Object.keys(sides)) {
  const ms = ours.mean(name);
  console.log(`ours ${name}: ${ms.toFixed(2)} ms (${(baselineMs / ms).toFixed(2)}x); every run: ${ours.spread(name)}`);
}
console.log(`Python ${CLASSIFICATION_BASELINE.join(' ')}, 1x${THREADS} threads: ${baselineMs.toFixed(2)} ms; every run: ${python_.spread('total')}`);
if (parts) {
  const steps = [
    'micro-batcher wait',
    'hop to the worker',
    'worker: tokenize',
    'worker: session run',
    'worker: pool + pack',
    'hop back',
    'head + sort (main thread)',
  ];
  console.log(`where the time goes (each step's fastest per text, mean ms), ours on the solo session:`);
  for (const step of steps) console.log(`  ${step}: ${ours.mean(step).toFixed(3)} (every run: ${ours.spread(step)})`);
  console.log(`  sum ${steps.reduce((sum, step) => sum + ours.mean(step), 0).toFixed(3)} vs whole ${ours.mean(SOLO).toFixed(3)}`);
  const pySteps = ['tokenize', 'run', 'pool_head'];
  console.log(
    `Python: ${pySteps.map((step) => `${step} ${python_.mean(step).toFixed(3)}`).join(', ')}; sum ${pySteps.reduce((sum, step) => sum + python_.mean(step), 0).toFixed(3)} vs whole ${baselineMs.toFixed(3)}`,
  );
}
process.exit(0);
