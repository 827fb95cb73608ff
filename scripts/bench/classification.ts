/**
 * npm run bench:text (classification part): throughput of minilm-sentiment at 1, 8 and 32
 * concurrent clients, against a Python onnxruntime + tokenizers baseline on the same ONNX, the
 * same label prototypes and the same intra-op thread count (scripts/bench/baselines/classification_ort.py),
 * measured in the same run. The goal is >= 1.0x at 32 clients, reached through micro-batching.
 *
 * Rows: "in-process" calls classify() directly (what the ratio uses; the baseline has no HTTP
 * either); "HTTP" goes through the real app on 127.0.0.1 with keep-alive fetch clients in this same
 * process, so it also pays for JSON, auth and the clients themselves. The event-loop delay column
 * shows how much tokenisation and pooling block the main thread (p99 / max, ms).
 *
 * Env: BENCH_THREADS (default 2), BENCH_REQUESTS per level (default 256), MODELS_DIR,
 * MODELS_MANIFEST, EVAL_DIR (texts: SST-2 validation sentences, used as inputs only).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { loadConfig } from '../../src/config/load-config.js';
import { createApp } from '../../src/http/create-app.js';
import { ENGINES } from '../../src/inference/engines.js';
import { readManifest } from '../../src/inference/manifest.js';
import { ModelRegistry } from '../../src/inference/model-registry.js';
import { configureRuntime } from '../../src/inference/runtime.js';
import type { Classifier } from '../../src/inference/types.js';
import { createLogger } from '../../src/logger.js';
import { openDatabase } from '../../src/users/open-database.js';

const MODEL = 'minilm-sentiment';
const LEVELS = [1, 8, 32];
const THREADS = Number(process.env.BENCH_THREADS ?? 2);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 256);
const API_KEY = 'bench-key-0123456789abcdef';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const evalDir = process.env.EVAL_DIR ?? resolve(root, '../shared/eval');
const textsFile = join(evalDir, 'classification/sst2_validation_300.tsv');

interface Measured {
  textsPerSecond: number;
  loopP99Ms?: number;
  loopMaxMs?: number;
}

/** `concurrency` clients share one counter and each sends its next text as soon as its last one is answered. */
async function drive(concurrency: number, send: (text: string) => Promise<unknown>, texts: string[]): Promise<Measured> {
  let next = 0;
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < REQUESTS) await send(texts[next++ % texts.length] as string);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  loop.disable();
  return { textsPerSecond: REQUESTS / seconds, loopP99Ms: loop.percentile(99) / 1e6, loopMaxMs: loop.max / 1e6 };
}

function listen(server: Server): Promise<number> {
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done((server.address() as AddressInfo).port)));
}

interface Baseline {
  results: Array<{ concurrency: number; texts_per_s: number }>;
  top: string[];
}

/** One baseline process per level, run right after our own measurement of that level, so both see the same machine load. */
function pythonBaseline(python: string, modelDir: string, manifestPath: string, level: number): Baseline {
  const args = [join(root, 'scripts/bench/baselines/classification_ort.py'), modelDir, manifestPath, MODEL, textsFile, String(THREADS), String(REQUESTS), String(level)];
  const run = spawnSync(python, args, { encoding: 'utf8', env: { ...process.env, OMP_NUM_THREADS: String(THREADS) } });
  if (run.status !== 0) throw new Error(`Python baseline failed: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').pop() as string);
}

async function main(): Promise<void> {
  const config = loadConfig({ ...process.env, API_KEYS: API_KEY, LOG_LEVEL: 'silent', DATABASE_URL: 'sqlite::memory:' });
  configureRuntime({ modelsDir: config.modelsDir });
  const manifest = await readManifest(config.manifestPath);
  const entry = manifest.models.find((model) => model.id === MODEL);
  if (!entry) throw new Error(`${MODEL} is not in ${config.manifestPath}`);
  const benchEntry = { ...entry, options: { ...entry.options, threads: THREADS } };
  const models = new ModelRegistry({ manifest: { models: [benchEntry] }, modelsDir: config.modelsDir, engines: ENGINES });
  const texts = readFileSync(textsFile, 'utf8').trim().split('\n').slice(1).map((line) => line.slice(0, line.lastIndexOf('\t')));

  const classifier: Classifier = await models.get(MODEL, 'text-classification');
  await Promise.all(texts.slice(0, 32).map((text) => classifier.classify(text))); // warm-up
  const jsTop: Array<string | undefined> = [];
  for (const text of texts.slice(0, 20)) jsTop.push((await classifier.classify(text))[0]?.label);

  const db = await openDatabase(':memory:');
  const server = createServer(createApp({ db, models, config, logger: createLogger('silent') }).callback());
  const port = await listen(server);
  const url = `http://127.0.0.1:${port}/v1/classifications`;
  const overHttp = async (query: string) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${API_KEY}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: MODEL, query }),
    });
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
    return res.json();
  };

  const python = process.env.TOOLS_PYTHON ?? execFileSync('bash', [join(root, 'scripts/tools/setup-venv.sh')], { encoding: 'utf8' }).trim();
  const modelDir = resolve(config.modelsDir, String(entry.options?.baseModel ?? entry.id));
  const inProcess = new Map<number, Measured>();
  const http = new Map<number, Measured>();
  const baseline = new Map<number, number>();
  let pythonTop: string[] = [];
  try {
    for (const level of LEVELS) {
      inProcess.set(level, await drive(level, (text) => classifier.classify(text), texts));
      const run = pythonBaseline(python, modelDir, resolve(config.manifestPath), level);
      baseline.set(level, run.results[0]?.texts_per_s ?? NaN);
      pythonTop = run.top;
      http.set(level, await drive(level, overHttp, texts));
    }
  } finally {
    server.close();
    await models.close();
    await db.destroy();
  }
  const agree = pythonTop.filter((label, index) => label === jsTop[index]).length;

  console.log(`${MODEL}: ${REQUESTS} requests per level, ${THREADS} intra-op threads on both sides, texts from SST-2 validation`);
  console.log('clients | in-process texts/s | HTTP texts/s | Python ORT texts/s | ratio (in-process / Python) | event loop p99 / max ms');
  for (const level of LEVELS) {
    const ours = inProcess.get(level) as Measured;
    const viaHttp = http.get(level) as Measured;
    const base = baseline.get(level) ?? NaN;
    console.log(
      `${String(level).padStart(7)} | ${ours.textsPerSecond.toFixed(1).padStart(18)} | ${viaHttp.textsPerSecond.toFixed(1).padStart(12)} | ` +
        `${base.toFixed(1).padStart(18)} | ${(ours.textsPerSecond / base).toFixed(2).padStart(26)}x | ` +
        `${ours.loopP99Ms?.toFixed(1)} / ${ours.loopMaxMs?.toFixed(1)}`,
    );
  }
  const ratio32 = (inProcess.get(32)?.textsPerSecond ?? 0) / (baseline.get(32) ?? Infinity);
  console.log(`goal >= 1.0x at 32 clients: ${ratio32.toFixed(2)}x ${ratio32 >= 1 ? 'PASS' : 'MISS'}`);
  console.log(`top label agreement with the Python baseline on 20 texts: ${agree}/20`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exitCode = 1;
});
