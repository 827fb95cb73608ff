/**
 * Where the time of concurrent classification goes: BENCH_CLIENTS clients (default 32) each send
 * their next SST-2 text as soon as the last is answered, through the engine's micro-batcher onto
 * BENCH_WORKERS batch-model workers (default 2) of BENCH_THREADS intra-op threads each (default 1),
 * minilm-sentiment's base model. Prints texts/s and, per batch, its size, the runs its length
 * buckets took and the padded share of their tokens, the worker's tokeniser, session runs and
 * pooling, the two hops, and how long a worker sat idle between two batches: what bench:text's
 * 32-client ratio is made of. No baseline; compare the session runs with Python's by other means.
 *
 * Run: npx tsx scripts/bench/classification-batches.ts. Env: BENCH_CLIENTS, BENCH_WORKERS,
 * BENCH_THREADS, BENCH_REQUESTS (default 512, after 128 unrecorded), MODELS_DIR, EVAL_DIR.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AutoTokenizer } from '@huggingface/transformers';
import { lengthBuckets, RUN_TOKENS } from '../../src/inference/sentence-encoder/length-buckets.js';
import { BATCH_MODEL_WORKER, type BatchModelApi, type BatchModelInit, type ForwardStages } from '../../src/inference/sentence-encoder/batch-model-protocol.js';
import { MicroBatcher } from '../../src/inference/sentence-encoder/micro-batcher.js';
import { ModelWorker } from '../../src/inference/worker/model-worker.js';
import { loadAverage } from '../eval/lib/load-average.js';
import { evalSetFile } from '../eval/lib/eval-data.js';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 32);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 2);
const THREADS = Number(process.env.BENCH_THREADS ?? 1);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 512);
const WARM_UP = 128;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const modelsDir = resolve(process.env.MODELS_DIR ?? join(root, 'models'));
const dir = join(modelsDir, 'all-MiniLM-L6-v2');
const textsFile = evalSetFile('classification', 'sst2_validation_300.tsv');
const texts = readFileSync(textsFile, 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => line.slice(0, line.lastIndexOf('\t')));

/** Sums over the recorded batches. */
class Totals {
  batches = 0;
  texts = 0;
  realTokens = 0;
  /** Runs the worker's length buckets made and the tokens they padded to, as it splits them. */
  runs = 0;
  paddedTokens = 0;
  tokenizeMs = 0;
  runMs = 0;
  poolMs = 0;
  hopToMs = 0;
  hopBackMs = 0;
  idleMs = 0;
  per(value: number): string {
    return (value / this.batches).toFixed(2);
  }
}

const loadBefore = loadAverage();
const init: BatchModelInit = {
  modelsDir,
  dir,
  head: 'feature-extraction',
  dtype: 'fp32',
  threads: THREADS,
  spinning: false,
  maxBatchSize: 32,
  pooling: 'mean',
};
const workers = await Promise.all(
  Array.from({ length: WORKERS }, (_, index) => ModelWorker.start(BATCH_MODEL_WORKER, { init, modelId: 'minilm', name: `batches:${index}` })),
);
// Only for counting real tokens: the worker tokenises on its own.
const tokenizer = await AutoTokenizer.from_pretrained(dir);
const tokens = new Map(texts.map((text) => [text, tokenizer.encode(text).length]));
const busy = workers.map(() => 0);
/** When each worker last answered, for its idle time until the next batch. */
const answeredAt: Array<number | undefined> = workers.map(() => undefined);
let totals = new Totals();

async function runBatch(items: string[]): Promise<number[]> {
  const slot = busy.indexOf(Math.min(...busy));
  const worker = workers[slot] as ModelWorker<BatchModelApi>;
  busy[slot]!++;
  const sent = performance.now();
  const idleSince = answeredAt[slot];
  try {
    const { stages } = await worker.call('forward', { texts: items, profile: true });
    const answered = performance.now();
    answeredAt[slot] = answered;
    const { tokenizeMs, runMs, poolMs, receivedAt, repliedAt } = stages as ForwardStages;
    totals.batches++;
    totals.texts += items.length;
    const lengths = items.map((text) => tokens.get(text) as number);
    totals.realTokens += lengths.reduce((sum, length) => sum + length, 0);
    for (const bucket of lengthBuckets(lengths, { runTokens: RUN_TOKENS, maxBucketSize: init.maxBatchSize })) {
      totals.runs++;
      totals.paddedTokens += bucket.length * Math.max(...bucket.map((index) => lengths[index] as number));
    }
    totals.tokenizeMs += tokenizeMs;
    totals.runMs += runMs;
    totals.poolMs += poolMs;
    totals.hopToMs += receivedAt - (performance.timeOrigin + sent);
    totals.hopBackMs += performance.timeOrigin + answered - repliedAt;
    if (idleSince !== undefined) totals.idleMs += sent - idleSince;
    return items.map(() => 0);
  } finally {
    busy[slot]!--;
  }
}

const batcher = new MicroBatcher<string, number>(runBatch, { maxBatchSize: 32, maxWaitMs: 0, maxInFlight: WORKERS });
async function drive(requests: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < requests) await batcher.submit(texts[next++ % texts.length] as string);
    }),
  );
  return performance.now() - started;
}

await drive(WARM_UP);
totals = new Totals();
answeredAt.fill(undefined);
const ms = await drive(REQUESTS);
console.log(
  `${CLIENTS} clients, ${WORKERS}x${THREADS} threads, ${REQUESTS} requests: ${((1000 * totals.texts) / ms).toFixed(1)} texts/s; ` +
    `load average ${loadBefore} before, ${loadAverage()} after`,
);
console.log(
  `per batch (${(totals.texts / totals.batches).toFixed(1)} texts in ${totals.per(totals.runs)} runs, ${totals.per(totals.realTokens)} real tokens padded to ${totals.per(totals.paddedTokens)}): ` +
    `tokenize ${totals.per(totals.tokenizeMs)}, session runs ${totals.per(totals.runMs)}, pool ${totals.per(totals.poolMs)}, ` +
    `hop to the worker ${totals.per(totals.hopToMs)}, hop back ${totals.per(totals.hopBackMs)}, worker idle before it ${totals.per(totals.idleMs)} ms`,
);
await Promise.all(workers.map((worker) => worker.dispose()));
process.exit(0);
