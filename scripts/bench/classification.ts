/**
 * npm run bench:text (classification part): throughput of minilm-sentiment at 1, 8 and 32
 * concurrent clients, against a Python onnxruntime + tokenizers baseline on the same ONNX, the
 * same label scoring (the trained head) and the same number of ONNX Runtime compute threads
 * (scripts/bench/baselines/classification_ort.py, on the onnxruntime and tokenizers PyPI gives today:
 * baselines/classification-venv.ts), measured in the same run: for each level the
 * baseline runs right after our measurement, so both see the same machine load. Goals: >= 1.0x at one
 * client and >= 1.1x at 32 clients, in the default layout.
 *
 * Our side runs in three layouts with the same thread total T (BENCH_THREADS, default 2):
 *   "2x{T/2}+solo{T}"  the server's default: two workers with T/2 threads each, fed half-batches,
 *                      plus a solo session with T threads for lone requests (see BatchModel);
 *   "2x{T/2}"          the same without the solo session;
 *   "1x{T}"            one worker, one session with T intra-op threads (the baseline's layout, but
 *                      its threads sleep between parallel sections instead of spinning).
 * The baseline is one session with T intra-op threads, each client thread calling run() with one
 * text (no batching). Rows marked "in-process" call classify() directly (the baseline has no HTTP
 * either); the HTTP column goes through the real app on 127.0.0.1 with keep-alive fetch clients in
 * this same process (default layout). The event-loop column (p99 / max, ms, default layout,
 * in-process) shows how much the main thread is blocked: tokenisation, inference and pooling all
 * run in the workers. It comes from one more pass per level with a 1 ms event-loop probe, not from
 * the timed rounds: the probe's timer wakes the main thread every millisecond, which on two cores
 * takes one from the ONNX threads and cost our side ~11 % at one client (5.48 vs 4.88 ms a request,
 * alternating blocks of 16; Python's side has no probe). The app's own metrics keep their 10 ms probe. The load average is printed before and after, since other work on the
 * machine changes what both sides can reach.
 *
 * At one client the bench also prints, per side, the mean over the texts of each text's fastest
 * round: the least disturbed time per text, nearer to a quiet machine than a round's throughput;
 * and the spread of every request (p50 / p90 / p99 / max) of the default layout and the baseline.
 *
 * Each level is measured in BENCH_ROUNDS (default 3) interleaved rounds (ours, then the baseline)
 * and each side keeps its best round: other work on a shared machine only ever slows a side down,
 * so the best round is the least disturbed one.
 *
 * Env: BENCH_THREADS, BENCH_LEVELS (client counts, default 1,8,32), BENCH_REQUESTS per level (default 256), BENCH_ROUNDS, MODELS_DIR, MODELS_MANIFEST,
 * EVAL_DIR (texts: SST-2 validation sentences, used as inputs only), BASELINE_PYTHON (skips the venv).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config/load-config.js';
import { createApp } from '../../src/http/create-app.js';
import { ENGINES } from '../../src/inference/engines.js';
import { readManifest, type ManifestEntry } from '../../src/inference/manifest.js';
import { ModelRegistry } from '../../src/inference/model-registry.js';
import { configureRuntime } from '../../src/inference/runtime.js';
import { createLogger } from '../../src/logger.js';
import { openDatabase } from '../../src/users/open-database.js';
import { loadAverage } from '../eval/lib/load-average.js';
import { CLASSIFICATION_BASELINE, classificationBaselinePython } from './baselines/classification-venv.js';
import { evalSetFile } from '../eval/lib/eval-data.js';

const MODEL = 'minilm-sentiment';
const LEVELS = (process.env.BENCH_LEVELS ?? '1,8,32').split(',').map(Number);
/** Clients → the least ratio to the baseline the default layout must reach. */
const GOALS: Array<[number, number]> = [
  [1, 1.0],
  [32, 1.1],
];
const THREADS = Number(process.env.BENCH_THREADS ?? 2);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 256);
/** The machine is shared and its load swings a lot: each side keeps its best of this many interleaved rounds. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const API_KEY = 'bench-key-0123456789abcdef';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const textsFile = evalSetFile('classification', 'sst2_validation_300.tsv');
const progress = (message: string) => process.stderr.write(`[bench] ${message}\n`);

interface Measured {
  textsPerSecond: number;
  /** Round trip of each request, by request index (request i sends text i mod the text count). */
  latenciesMs: number[];
}

interface LoopDelay {
  p99Ms: number;
  maxMs: number;
}

/** `concurrency` clients share one counter and each sends its next text as soon as its last one is answered. */
async function drive(concurrency: number, send: (text: string) => Promise<unknown>, texts: string[]): Promise<Measured> {
  let next = 0;
  const latenciesMs: number[] = new Array(REQUESTS);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < REQUESTS) {
        const index = next++;
        const sent = performance.now();
        await send(texts[index % texts.length] as string);
        latenciesMs[index] = performance.now() - sent;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { textsPerSecond: REQUESTS / seconds, latenciesMs };
}

/** The event loop's delay while `drive` runs, sampled every millisecond (an untimed pass, see the header). */
async function loopDelay(run: () => Promise<unknown>): Promise<LoopDelay> {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  await run();
  loop.disable();
  return { p99Ms: loop.percentile(99) / 1e6, maxMs: loop.max / 1e6 };
}

/**
 * Per request index, the fastest round so far. At one client, the mean of these is the least
 * disturbed time per text: on a machine shared with other work a round's throughput mostly
 * measures that work, while each text's fastest round is close to what a quiet machine gives.
 */
function fastest(current: number[] | undefined, next: number[]): number[] {
  return current ? current.map((ms, index) => Math.min(ms, next[index] as number)) : next;
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** Mean, p50, p90, p99 and max of request times, ms. */
function spread(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number).toFixed(2);
  return `mean ${mean(sorted).toFixed(2)}, p50 ${at(0.5)}, p90 ${at(0.9)}, p99 ${at(0.99)}, max ${(sorted.at(-1) as number).toFixed(2)} ms`;
}

function best(current: Measured | undefined, next: Measured): Measured {
  return current && current.textsPerSecond >= next.textsPerSecond ? current : next;
}

function listen(server: Server): Promise<number> {
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done((server.address() as AddressInfo).port)));
}

interface Baseline {
  textsPerSecond: number;
  latenciesMs: number[];
  top: string[];
}

function pythonBaseline(python: string, modelDir: string, manifestPath: string, level: number): Baseline {
  const script = join(root, 'scripts/bench/baselines/classification_ort.py');
  const args = [script, modelDir, manifestPath, MODEL, textsFile, String(THREADS), String(REQUESTS), String(level)];
  const run = spawnSync(python, args, { encoding: 'utf8', timeout: 600_000 });
  if (run.status !== 0) throw new Error(`Python baseline failed: ${run.stderr || run.error}`);
  const parsed = JSON.parse(run.stdout.trim().split('\n').pop() as string);
  return { textsPerSecond: parsed.results[0].texts_per_s, latenciesMs: parsed.results[0].latencies_ms, top: parsed.top };
}

async function main(): Promise<void> {
  const config = loadConfig({ ...process.env, API_KEYS: API_KEY, LOG_LEVEL: 'silent', DATABASE_URL: 'sqlite::memory:' });
  configureRuntime({ modelsDir: config.modelsDir });
  const manifest = await readManifest(config.manifestPath);
  const entry = manifest.models.find((model) => model.id === MODEL);
  if (!entry) throw new Error(`${MODEL} is not in ${config.manifestPath}`);
  const loadBefore = loadAverage();
  const texts = readFileSync(textsFile, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.slice(0, line.lastIndexOf('\t')));

  // Three ids for the same weights, one per layout, so each loads once and is measured alone.
  const workers = Math.min(2, THREADS);
  const perWorker = THREADS / workers;
  const layout = (name: string, id: string, options: Record<string, number>) => ({ name, entry: { ...entry, id, options: { ...entry.options, ...options } } });
  const layouts: Array<{ name: string; entry: ManifestEntry }> = [
    layout(`${workers}x${perWorker}+solo${THREADS}`, MODEL, { workers, threads: perWorker, soloThreads: THREADS }),
    layout(`${workers}x${perWorker}`, `${MODEL}-no-solo`, { workers, threads: perWorker, soloThreads: 0 }),
    layout(`1x${THREADS}`, `${MODEL}-1x`, { workers: 1, threads: THREADS, soloThreads: 0 }),
  ];
  const models = new ModelRegistry({ manifest: { models: layouts.map((l) => l.entry) }, modelsDir: config.modelsDir, engines: ENGINES });
  progress(`loading ${MODEL} in layouts ${layouts.map((l) => l.name).join(', ')}`);
  const classifiers = await Promise.all(layouts.map((l) => models.get(l.entry.id, 'text-classification')));
  for (const classifier of classifiers) await Promise.all(texts.slice(0, 64).map((text) => classifier.classify(text))); // warm-up
  const jsTop: Array<string | undefined> = [];
  for (const text of texts.slice(0, 20)) jsTop.push((await classifiers[0]!.classify(text))[0]?.label);

  const db = await openDatabase(':memory:');
  const server = createServer(createApp({ db, models, config, logger: createLogger('silent') }).callback());
  const port = await listen(server);
  const overHttp = async (query: string) => {
    const res = await fetch(`http://127.0.0.1:${port}/v1/classifications`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${API_KEY}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: MODEL, query }),
    });
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
    return res.json();
  };

  const python = classificationBaselinePython(root);
  const modelDir = resolve(config.modelsDir, String(entry.options?.baseModel ?? entry.id));
  const rows: Array<{ level: number; ours: Measured[]; http: Measured; baseline: Baseline; loop: LoopDelay }> = [];
  /** One client only: per text, the fastest round of each layout and of the baseline. */
  const quietOurs: Array<number[] | undefined> = [];
  let quietBaseline: number[] | undefined;
  let quietHttp: number[] | undefined;
  /** One client only: every request's time over all rounds, default layout and baseline (the spread). */
  const everyOurs: number[] = [];
  const everyBaseline: number[] = [];
  try {
    for (const level of LEVELS) {
      const ours: Measured[] = [];
      let baseline: Baseline | undefined;
      let http: Measured | undefined;
      for (let round = 1; round <= ROUNDS; round++) {
        // Each round starts at the next layout: with a fixed order the layout measured first came
        // out ~10 % behind at 8 clients in five runs, and level with the others once swapped.
        for (let step = 0; step < layouts.length; step++) {
          const index = (step + round) % layouts.length;
          const layout = layouts[index]!;
          progress(`${level} clients, round ${round}: in-process ${layout.name}`);
          const measured = await drive(level, (text) => classifiers[index]!.classify(text), texts);
          ours[index] = best(ours[index], measured);
          if (level === 1) quietOurs[index] = fastest(quietOurs[index], measured.latenciesMs);
          if (level === 1 && index === 0) everyOurs.push(...measured.latenciesMs);
        }
        progress(`${level} clients, round ${round}: Python baseline`);
        const run = pythonBaseline(python, modelDir, resolve(config.manifestPath), level);
        if (!baseline || run.textsPerSecond > baseline.textsPerSecond) baseline = run;
        if (level === 1) quietBaseline = fastest(quietBaseline, run.latenciesMs);
        if (level === 1) everyBaseline.push(...run.latenciesMs);
        progress(`${level} clients, round ${round}: HTTP`);
        const overHttpMeasured = await drive(level, overHttp, texts);
        http = best(http, overHttpMeasured);
        if (level === 1) quietHttp = fastest(quietHttp, overHttpMeasured.latenciesMs);
      }
      progress(`${level} clients: event-loop probe, in-process ${layouts[0]!.name}`);
      const loop = await loopDelay(() => drive(level, (text) => classifiers[0]!.classify(text), texts));
      rows.push({ level, ours, http: http as Measured, baseline: baseline as Baseline, loop });
    }
  } finally {
    server.close();
    await models.close();
    await db.destroy();
  }

  const names = layouts.map((l) => l.name);
  const main = names[0] as string;
  console.log(
    `${MODEL}: ${REQUESTS} requests per level, best of ${ROUNDS} interleaved rounds per side, ` +
      `${THREADS} ONNX Runtime threads per side, texts from SST-2 validation, Python ${CLASSIFICATION_BASELINE.join(' ')}; load average ${loadBefore} before, ${loadAverage()} after`,
  );
  console.log(
    `clients | ${names.map((name) => `ours ${name}`).join(' | ')} | HTTP ${main} | Python ORT 1x${THREADS} | ` +
      `${names.map((name) => `ratio ${name}`).join(' | ')} | event loop p99/max ms`,
  );
  for (const { level, ours, http, baseline, loop } of rows) {
    const base = baseline.textsPerSecond;
    console.log(
      [
        String(level).padStart(7),
        ...ours.map((measured) => measured.textsPerSecond.toFixed(1).padStart(8)),
        http.textsPerSecond.toFixed(1).padStart(8),
        base.toFixed(1).padStart(15),
        ...ours.map((measured) => `${(measured.textsPerSecond / base).toFixed(2)}x`.padStart(9)),
        `${loop.p99Ms.toFixed(1)} / ${loop.maxMs.toFixed(1)}`,
      ].join(' | '),
    );
  }
  for (const [level, goal] of GOALS) {
    const row = rows.find((candidate) => candidate.level === level);
    if (!row) continue;
    const ratio = row.ours[0]!.textsPerSecond / row.baseline.textsPerSecond;
    console.log(`goal >= ${goal.toFixed(1)}x at ${level} client(s) (default layout ${main}): ${ratio.toFixed(2)}x ${ratio >= goal ? 'PASS' : 'MISS'}`);
  }
  if (quietBaseline) {
    const baseMs = mean(quietBaseline);
    const parts = names.map((name, index) => {
      const ms = mean(quietOurs[index] as number[]);
      return `ours ${name} ${ms.toFixed(2)} ms (${(baseMs / ms).toFixed(2)}x)`;
    });
    const httpMs = mean(quietHttp as number[]);
    console.log(
      `1 client, each text's fastest of ${ROUNDS} rounds, mean ms per text: ${parts.join(', ')}, ` +
        `HTTP ${main} ${httpMs.toFixed(2)} ms (${(baseMs / httpMs).toFixed(2)}x), Python ${baseMs.toFixed(2)} ms`,
    );
  }
  if (everyOurs.length > 0) {
    console.log(`1 client, every request of all rounds: ours ${main} ${spread(everyOurs)}; Python ${spread(everyBaseline)}`);
  }
  const pythonTop = rows.at(-1)?.baseline.top ?? [];
  console.log(`top label agreement with the Python baseline on 20 texts: ${pythonTop.filter((label, i) => label === jsTop[i]).length}/20`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exitCode = 1;
});
