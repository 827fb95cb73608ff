/**
 * The Batch API against the synchronous route on the same server (issue 42, items 3 and 4):
 *
 *   flock /tmp/bench.lock npx tsx scripts/bench/batch-fairness.ts [--lines 2000] [--probes 40] [--concurrency 8]
 *
 * Starts the real server (its own process, SQLite in a temporary folder, the real MiniLM), warms the
 * model with 8 s of 8 concurrent clients, and:
 * 1. the synchronous route's best requests/s: one-text /v1/embeddings requests from 1, 4, 8 and
 *    16 concurrent clients, 8 s each, before and again after the batch (the machine is shared: its
 *    load moves); the best of all is the baseline;
 * 2. after 11 s of quiet (the encoders favour requests for 10 s after one), a batch of `--lines`
 *    one-text embedding lines, timed from creation to `completed`: lines/s
 *    against that best (goal ≥ 90 %);
 * 3. a synchronous one-text request's latency, `--probes` in a row: idle, then while a second batch
 *    runs; the median during the batch against the idle median (goal ≤ 3×).
 * `--concurrency` is BATCH_CONCURRENCY. Prints each figure and the load average; gives up
 * (server stopped, exit 1) after 15 minutes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startServer, type BenchServer } from '../eval/lib/bench-server.js';
import { loadAverage } from '../eval/lib/load-average.js';
import { RESERVE_MS } from '../../src/inference/sentence-encoder/encoder-options.js';

const { values: args } = parseArgs({
  options: {
    lines: { type: 'string', default: '2000' },
    probes: { type: 'string', default: '40' },
    concurrency: { type: 'string', default: '16' },
  },
});
const LINES = Math.max(100, Math.min(50_000, Number(args.lines) || 2000));
const PROBES = Math.max(5, Math.min(500, Number(args.probes) || 40));
const CONCURRENCY = Math.max(1, Math.min(256, Number(args.concurrency) || 16));
const RUN_LIMIT_MS = 15 * 60_000;
const SYNC_SECONDS = 8;
const MODEL = 'text-embedding-3-small';
const text = (i: number) => `Passage ${i}: the quick brown fox jumps over the lazy dog near the river bank.`;

let server: BenchServer | undefined;
const filesDir = await mkdtemp(join(tmpdir(), 'bench-files-'));
/** Longer than the encoders' window after a request, so the timed batch has nobody else about. */
const QUIET_BEFORE_BATCH_MS = RESERVE_MS + 1000;
const giveUp = setTimeout(() => {
  console.error(`batch-fairness: gave up after ${RUN_LIMIT_MS / 60_000} min`);
  void server?.stop().finally(() => process.exit(1));
}, RUN_LIMIT_MS);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

try {
  server = await startServer({
    modelsDir: resolve('models'),
    env: { FILES_DIR: filesDir, BATCH_CONCURRENCY: String(CONCURRENCY) },
  });
  const { baseUrl, apiKey } = server;
  const headers = { Authorization: `Bearer ${apiKey}` };
  const call = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${baseUrl}${path}`, { ...init, headers: { ...headers, ...(init.headers ?? {}) } });
    if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${await res.text()}`);
    return res;
  };
  const embedOnce = async (i: number) => {
    const started = performance.now();
    await (
      await call('/v1/embeddings', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ model: MODEL, input: text(i) }) })
    ).arrayBuffer();
    return performance.now() - started;
  };
  const submitBatch = async (offset: number) => {
    const jsonl = Array.from({ length: LINES }, (_, i) =>
      JSON.stringify({ custom_id: `l${i}`, method: 'POST', url: '/v1/embeddings', body: { model: MODEL, input: text(offset + i) } }),
    ).join('\n');
    const form = new FormData();
    form.set('purpose', 'batch');
    form.set('file', new Blob([jsonl]), 'lines.jsonl');
    const file = (await (await call('/v1/files', { method: 'POST', body: form })).json()) as { id: string };
    const body = JSON.stringify({ input_file_id: file.id, endpoint: '/v1/embeddings', completion_window: '24h' });
    return ((await (await call('/v1/batches', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body })).json()) as { id: string }).id;
  };
  const batchState = async (id: string) =>
    (await (await call(`/v1/batches/${id}`)).json()) as { status: string; request_counts: { completed: number; failed: number } };

  // Load the model and warm its sessions with the load to come: a cold run is slower by a third.
  const warmUntil = performance.now() + SYNC_SECONDS * 1000;
  await Promise.all(
    Array.from({ length: 8 }, async (_, client) => {
      for (let i = 0; performance.now() < warmUntil; i++) await embedOnce(800_000 + client * 1000 + i);
    }),
  );

  // 1. The synchronous route's best requests/s (again after the batch, below).
  let best = { clients: 0, rps: 0 };
  const measureSync = async () => {
    for (const clients of [1, 4, 8, 16]) {
      let done = 0;
      const until = performance.now() + SYNC_SECONDS * 1000;
      await Promise.all(
        Array.from({ length: clients }, async (_, client) => {
          while (performance.now() < until) await embedOnce(client * 100_000 + done++);
        }),
      );
      const rps = done / SYNC_SECONDS;
      console.log(`sync, ${clients} clients: ${rps.toFixed(1)} requests/s (load ${loadAverage()})`);
      if (rps > best.rps) best = { clients, rps };
    }
  };
  await measureSync();

  // 2. Batch throughput, with nobody else about: for 10 s after a request the encoders keep a worker
  // from a batch's lines and run them short (encoder-options.ts, RESERVE_MS), which part 3 measures.
  await new Promise((resolveWait) => setTimeout(resolveWait, QUIET_BEFORE_BATCH_MS));
  const started = performance.now();
  const id = await submitBatch(0);
  let state = await batchState(id);
  while (!['completed', 'failed', 'cancelled', 'expired'].includes(state.status)) {
    await new Promise((resolveWait) => setTimeout(resolveWait, 100));
    state = await batchState(id);
  }
  const seconds = (performance.now() - started) / 1000;
  const batchRate = LINES / seconds;
  await measureSync();
  console.log(
    `batch of ${LINES} lines (BATCH_CONCURRENCY ${CONCURRENCY}): ${state.status}, ${state.request_counts.completed} completed in ${seconds.toFixed(1)} s = ${batchRate.toFixed(1)} lines/s, ${((100 * batchRate) / best.rps).toFixed(0)} % of the sync best (${best.rps.toFixed(1)}/s with ${best.clients} clients) (load ${loadAverage()})`,
  );

  // 3. Latency idle, then during a batch.
  const idle: number[] = [];
  for (let i = 0; i < PROBES; i++) idle.push(await embedOnce(900_000 + i));
  const second = await submitBatch(LINES);
  while ((await batchState(second)).request_counts.completed < 50) await new Promise((resolveWait) => setTimeout(resolveWait, 50));
  const busy: number[] = [];
  for (let i = 0; i < PROBES; i++) busy.push(await embedOnce(950_000 + i));
  const stillRunning = (await batchState(second)).status === 'in_progress';
  console.log(
    `sync latency, median of ${PROBES}: idle ${median(idle).toFixed(1)} ms, during a batch ${median(busy).toFixed(1)} ms = ${(median(busy) / median(idle)).toFixed(2)}× (p90 ${[...busy].sort((a, b) => a - b)[Math.floor(PROBES * 0.9)]!.toFixed(1)} ms; batch still running at the end: ${stillRunning}) (load ${loadAverage()})`,
  );
} finally {
  clearTimeout(giveUp);
  await server?.stop();
  await rm(filesDir, { recursive: true, force: true });
}
