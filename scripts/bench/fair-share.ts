/**
 * How long a normal transcription waits behind another key's maximum-cost one (issue 39, item 7).
 *
 *   tsx scripts/bench/fair-share.ts [--rounds 2] [--model whisper-tiny.en] [--server-dir <checkout>]
 *
 * Starts the real server on 127.0.0.1 with two static API keys, A and B, and the model preloaded.
 * Key B's normal request is samples/jfk.mp3 (11 s) with no option. Key A's maximum-cost request is
 * the same file with everything the limits allow at once: beam_size 5 × best_of 5, the six
 * temperatures, thresholds that make every temperature fail (so every fallback runs), and 4,000
 * characters of hotwords (the most the field takes; the decoder reads 223 tokens of them).
 *
 * Per round: B alone (idle latency), A alone (what the worst request costs), then A, and 1 s after
 * it B; printed are B's latency behind A against B's idle latency, and A's time. `--server-dir`
 * runs another checkout's server (e.g. the code before the fair queue, from `git archive`) on the
 * same models, for a before/after pair. Bounded: --rounds at most 5, and the run gives up (server
 * stopped, exit 1) after 10 minutes.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startServer, type BenchServer } from '../eval/lib/bench-server.js';
import { loadAverage } from '../eval/lib/load-average.js';
import { modelsDir } from '../eval/lib/load-transcriber.js';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '2' },
    model: { type: 'string', default: 'whisper-tiny.en' },
    'server-dir': { type: 'string' },
  },
});
const rounds = Math.max(1, Math.min(5, Number(args.rounds) || 2));
const RUN_LIMIT_MS = 10 * 60_000;
const B_AFTER_MS = 1_000;

const KEY_A = `key_a_${'a'.repeat(24)}`;
const KEY_B = `key_b_${'b'.repeat(24)}`;
const audio = await readFile(new URL('../../samples/jfk.mp3', import.meta.url));

const HOTWORDS = Array.from({ length: 400 }, (_, index) => `word${index}`)
  .join(' ')
  .slice(0, 4_000);
/** Everything the limits allow in one request, with thresholds no decode passes. */
const MAXIMUM_COST: Record<string, string> = {
  beam_size: '5',
  best_of: '5',
  temperature: '0,0.2,0.4,0.6,0.8,1',
  // No text compresses below 1 and no decode's mean log probability is above 0: every temperature fails.
  compression_ratio_threshold: '1',
  log_prob_threshold: '0',
  // Never skipped as silence, so the window is decoded at every temperature.
  no_speech_threshold: '1',
  hotwords: HOTWORDS,
};

let server: BenchServer | undefined;
const giveUp = setTimeout(() => {
  console.error(`fair-share: gave up after ${RUN_LIMIT_MS / 60_000} min`);
  void server?.stop().finally(() => process.exit(1));
}, RUN_LIMIT_MS);
giveUp.unref();

server = await startServer({
  modelsDir: modelsDir(),
  cwd: args['server-dir'] && resolve(args['server-dir']),
  env: { API_KEYS: `${KEY_A},${KEY_B}`, PRELOAD_MODELS: args.model!, LOG_LEVEL: 'info' },
  startTimeoutMs: 120_000,
});
const { baseUrl } = server;

/** One transcription; resolves with its seconds, rejects on an error status. */
async function transcribe(key: string, fields: Record<string, string> = {}): Promise<number> {
  const form = new FormData();
  form.set('file', new Blob([audio], { type: 'audio/mpeg' }), 'jfk.mp3');
  form.set('model', args.model!);
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  const started = performance.now();
  const response = await fetch(`${baseUrl}/v1/audio/transcriptions`, { method: 'POST', headers: { Authorization: `Bearer ${key}` }, body: form });
  const body = await response.text();
  if (!response.ok) throw new Error(`${response.status}: ${body}`);
  return (performance.now() - started) / 1000;
}

const seconds = (value: number) => `${value.toFixed(2)} s`;
try {
  console.log(`server: ${args['server-dir'] ?? 'this checkout'}; model ${args.model}; load ${loadAverage()}`);
  await transcribe(KEY_B); // warm-up
  for (let round = 1; round <= rounds; round++) {
    const idle = await transcribe(KEY_B);
    const alone = await transcribe(KEY_A, MAXIMUM_COST);
    const worst = transcribe(KEY_A, MAXIMUM_COST);
    await new Promise((done) => setTimeout(done, B_AFTER_MS));
    const behind = await transcribe(KEY_B);
    const withB = await worst;
    console.log(
      `round ${round}: B idle ${seconds(idle)}, B behind A ${seconds(behind)} (${(behind / idle).toFixed(1)}×); ` +
        `A alone ${seconds(alone)}, A with B ${seconds(withB)}; load ${loadAverage()}`,
    );
  }
} finally {
  await server.stop();
}
