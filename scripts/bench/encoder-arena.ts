/**
 * What onnxruntime's memory arena costs and saves the sentence encoder (minilm-embeddings: its two
 * batch workers and the solo session), the manifest's `memoryArena` on (what every encoder ran
 * before it became an option) against off (the default now).
 *
 * Memory (default): one fresh process per side and run, under the allocator of the parent (run it
 * through scripts/server-allocator.sh, as `npm start` runs the server): RSS after one short text,
 * then `--rounds` requests of 100 texts of 10,000 characters (each cut to 256 tokens: batches of
 * 32, the costliest shape), each request's peak (VmHWM, reset before it) and the RSS 3 s after it,
 * over the RSS before the first.
 *
 * Speed (`--speed`): both sides loaded in one process, taking turns, `--rounds` rounds after one
 * unrecorded: lone short texts one after another, one request of 256 short texts, one of 64 long
 * texts; texts per second of each side over all rounds.
 *
 *   flock /tmp/bench.lock sh scripts/server-allocator.sh npx tsx scripts/bench/encoder-arena.ts [--runs 2] [--rounds 3]
 *   flock /tmp/bench.lock sh scripts/server-allocator.sh npx tsx scripts/bench/encoder-arena.ts --speed [--rounds 4]
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { sentenceEmbeddingEngine } from '../../src/inference/embeddings/sentence-embedding-engine.js';
import { readManifest } from '../../src/inference/manifest.js';
import { configureRuntime } from '../../src/inference/runtime.js';
import type { Embedder } from '../../src/inference/types.js';
import { loadAverage } from '../eval/lib/load-average.js';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '3' },
    speed: { type: 'boolean', default: false },
    /** One memory measurement in this process, the arena on or off (what each run is). */
    child: { type: 'string' },
  },
});
const MODEL = 'minilm-embeddings';
const modelsDir = resolve(process.env.MODELS_DIR ?? 'models');
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const SENTENCES = [
  'The birch canoe slid on the smooth planks.',
  'Glue the sheet to the dark blue background.',
  'It is easy to tell the depth of a well.',
  'These days a chicken leg is a rare dish.',
  'Rice is often served in round bowls.',
  'The juice of lemons makes fine punch.',
  'The box was thrown beside the parked truck.',
  'Four hours of steady work faced us.',
];
/** `text` repeated, space-separated, up to `chars` characters. */
const repeatTo = (text: string, chars: number) => {
  let out = '';
  while (out.length + text.length + 1 <= chars) out += (out ? ' ' : '') + text;
  return out;
};
const PROSE = SENTENCES.join(' ');
/** Short texts that differ, so no two batches are alike: a sentence and the start of the next. */
const shortText = (index: number) => {
  const at = Math.abs(index);
  return `${SENTENCES[at % SENTENCES.length]} ${SENTENCES[(at + 3) % SENTENCES.length]!.slice(0, at % 40)}`;
};

async function loadEmbedder(memoryArena: boolean): Promise<Embedder> {
  configureRuntime({ modelsDir });
  const manifest = await readManifest(join(modelsDir, 'models.json'));
  const entry = manifest.models.find((model) => model.id === MODEL);
  if (!entry) throw new Error(`no ${MODEL} in ${modelsDir}/models.json`);
  const embedder = await sentenceEmbeddingEngine.load(
    { ...entry, options: { ...entry.options, memoryArena } },
    { modelDir: join(modelsDir, MODEL), modelsDir },
  );
  await embedder.embed(['Fine.']);
  return embedder;
}

function status(): { rss: number; hwm: number } {
  const text = readFileSync('/proc/self/status', 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(text)?.[1] ?? Number.NaN);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

interface MemorySample {
  before: number;
  rounds: Array<{ peak: number; after: number; seconds: number }>;
}

async function measureMemory(memoryArena: boolean): Promise<MemorySample> {
  const embedder = await loadEmbedder(memoryArena);
  const texts = Array.from({ length: 100 }, (_, index) => `${index} ${repeatTo(PROSE, 10_000)}`);
  await sleep(3000);
  const before = status().rss;
  const rounds: MemorySample['rounds'] = [];
  for (let round = 0; round < Number(args.rounds); round++) {
    writeFileSync('/proc/self/clear_refs', '5'); // VmHWM back to the RSS now: this request's peak
    const started = performance.now();
    await embedder.embed(texts);
    const seconds = (performance.now() - started) / 1000;
    const { hwm } = status();
    await sleep(3000);
    rounds.push({ peak: hwm - before, after: status().rss - before, seconds });
  }
  await embedder.dispose();
  return { before, rounds };
}

async function measureSpeed(): Promise<void> {
  const sides = { on: await loadEmbedder(true), off: await loadEmbedder(false) };
  const workloads: Array<{ name: string; texts: number; run: (embedder: Embedder, round: number) => Promise<unknown> }> = [
    {
      name: '64 lone short texts, one after another',
      texts: 64,
      run: async (embedder, round) => {
        for (let index = 0; index < 64; index++) await embedder.embed([shortText(round * 64 + index)]);
      },
    },
    {
      name: 'one request of 256 short texts',
      texts: 256,
      run: (embedder, round) => embedder.embed(Array.from({ length: 256 }, (_, index) => shortText(round + index))),
    },
    {
      name: 'one request of 64 texts of 10,000 characters',
      texts: 64,
      run: (embedder, round) => embedder.embed(Array.from({ length: 64 }, (_, index) => `${round} ${index} ${repeatTo(PROSE, 10_000)}`)),
    },
  ];
  console.log(`encoder arena, speed: ${MODEL}, ${args.rounds} rounds, ${process.env.LD_PRELOAD ? 'jemalloc' : 'glibc'}, load ${loadAverage()}`);
  for (const workload of workloads) {
    const totals = { on: 0, off: 0 };
    for (let round = -1; round < Number(args.rounds); round++) {
      for (const side of (round % 2 ? ['on', 'off'] : ['off', 'on']) as Array<'on' | 'off'>) {
        const started = performance.now();
        await workload.run(sides[side], round);
        if (round >= 0) totals[side] += performance.now() - started;
      }
    }
    const rate = (ms: number) => (workload.texts * Number(args.rounds)) / (ms / 1000);
    console.log(
      `  ${workload.name}: arena on ${rate(totals.on).toFixed(1)} texts/s, off ${rate(totals.off).toFixed(1)} texts/s; time off ÷ on ${(totals.off / totals.on).toFixed(3)} (load ${loadAverage()})`,
    );
  }
  await Promise.all([sides.on.dispose(), sides.off.dispose()]);
}

if (args.child) {
  console.log(JSON.stringify(await measureMemory(args.child === 'on')));
} else if (args.speed) {
  await measureSpeed();
} else {
  console.log(
    `encoder arena, memory: ${MODEL}, ${args.rounds} requests of 100 texts of 10,000 characters, ${process.env.LD_PRELOAD ? 'jemalloc' : 'glibc'}, load ${loadAverage()}`,
  );
  for (let run = 0; run < Number(args.runs); run++) {
    for (const side of ['on', 'off']) {
      const stdout = execFileSync(process.execPath, ['--import', 'tsx', process.argv[1]!, '--child', side, '--rounds', args.rounds!], { encoding: 'utf8' });
      const sample = JSON.parse(stdout.trim().split('\n').at(-1)!) as MemorySample;
      const rounds = sample.rounds.map(
        (round) => `peak +${round.peak.toFixed(0)}, held ${round.after >= 0 ? '+' : ''}${round.after.toFixed(0)} (${round.seconds.toFixed(1)} s)`,
      );
      console.log(`  arena ${side}: RSS before ${sample.before.toFixed(0)} MB; ${rounds.join('; ')} (load ${loadAverage()})`);
    }
  }
}
process.exit(0);
