/**
 * Does unloading a model give its memory back? For each real test model (`npm run test-models`),
 * in a fresh child process: RSS before the load, after the load plus one inference (so every
 * session has run and its buffers exist), and after unloading it through the registry (its
 * worker threads end) and a short settle; then a second load, inference and unload (what the first
 * cycle left is a one-time cost only if the second leaves no more). The table shows unloaded ÷ before (goal: ≤ 1.10) and,
 * beside the measured growth of the load, the size of the model's files (the estimate the
 * registry uses before a model's first load).
 *
 * Each model runs with three mallocs (VARIANTS): glibc's defaults; glibc tuned so large blocks are
 * mmapped and freed memory is trimmed (MALLOC_MMAP_THRESHOLD_ fixed, which also stops glibc from
 * raising it after the first big free; fewer arenas); and jemalloc (Debian libjemalloc2) returning
 * dirty pages after 1 s. Run: npm run bench:model-memory (BENCH_MODELS=a,b and
 * BENCH_MALLOC=glibc,jemalloc to choose). About 3 minutes on 2 shared cores.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ENGINES } from '../../src/inference/engines.js';
import { filesSize } from '../../src/inference/lifecycle/files-size.js';
import { readManifest } from '../../src/inference/manifest.js';
import { ModelRegistry } from '../../src/inference/model-registry.js';
import { configureRuntime } from '../../src/inference/runtime.js';
import type { PcmAudio } from '../../src/audio/pcm-audio.js';
import { loadAverage } from '../eval/lib/load-average.js';

const MODELS = ['whisper-tiny.en', 'whisper-base-pypi', 'piper-en_US-joe-medium', 'minilm-embeddings', 'silero-vad-v6'];
const modelsDir = resolve(process.env.MODELS_DIR ?? 'models');
const MB = 2 ** 20;
const JEMALLOC = '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2';

/** How the child's malloc is set up (docs/operations.md, "Memory and the allocator", explains the choice). */
const VARIANTS: ReadonlyArray<readonly [string, Record<string, string>]> = [
  ['glibc', {}],
  ['glibc-tuned', { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '65536', MALLOC_TRIM_THRESHOLD_: '65536' }],
  ...(existsSync(JEMALLOC)
    ? [['jemalloc', { LD_PRELOAD: JEMALLOC, MALLOC_CONF: 'background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0' }] as const]
    : []),
];

interface Sample {
  model: string;
  before: number;
  loaded: number;
  unloaded: number;
  unloadedAgain: number;
  measuredLoad: number | null;
  files: number;
}

async function child(id: string): Promise<void> {
  configureRuntime({ modelsDir });
  const manifest = await readManifest(join(modelsDir, 'models.json'));
  const models = new ModelRegistry({ manifest, modelsDir, engines: ENGINES });
  const entry = manifest.models.find((model) => model.id === id)!;
  const dir = join(modelsDir, (entry.options?.baseModel as string | undefined) ?? id);
  // Not --expose-gc: worker threads refuse that flag in execArgv.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const settle = async () => {
    gc();
    await new Promise((done) => setTimeout(done, 3000));
    gc();
    return process.memoryUsage.rss();
  };
  const before = await settle();
  await models.load(id);
  await useOnce(models, id, entry.task);
  const loaded = await settle();
  const info = (await models.list()).find((model) => model.id === id)!;
  await models.unload(id);
  const unloaded = await settle();
  // A second cycle: what stays after the first is a one-time cost (e.g. the ONNX runtime library
  // mapped into the process) only if the second leaves no more.
  await models.load(id);
  await useOnce(models, id, entry.task);
  await models.unload(id);
  const unloadedAgain = await settle();
  await models.close();
  if (process.env.BENCH_VERBOSE) process.stderr.write(`${id}: ${JSON.stringify(process.memoryUsage())}\n`);
  const sample: Sample = { model: id, before, loaded, unloaded, unloadedAgain, measuredLoad: info.memory_bytes, files: await filesSize(dir) };
  process.stdout.write(JSON.stringify(sample));
}

async function useOnce(models: ModelRegistry, id: string, task: string): Promise<void> {
  const second: PcmAudio = { samples: new Float32Array(16_000).map((_, i) => 0.1 * Math.sin(i / 5)), sampleRate: 16_000 } as PcmAudio;
  if (task === 'speech-to-text') await (await models.get(id, 'speech-to-text')).transcribe(second);
  else if (task === 'voice-activity-detection') await (await models.get(id, 'voice-activity-detection')).detectSpeech(second);
  else if (task === 'embeddings') await (await models.get(id, 'embeddings')).embed(['The service was quick and the food was great.']);
  else if (task === 'text-to-speech')
    for await (const _chunk of (await models.get(id, 'text-to-speech')).speak('Hello there, this is a test.', { format: 'wav' }));
}

function run(id: string, env: Record<string, string>): Sample {
  const script = fileURLToPath(import.meta.url);
  const out = execFileSync(process.execPath, ['--import', 'tsx', script, '--child', id], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out.slice(out.indexOf('{'))) as Sample;
}

if (process.argv[2] === '--child') {
  await child(process.argv[3]!);
  process.exit(0);
} else {
  const chosen = process.env.BENCH_MODELS?.split(',') ?? MODELS;
  console.log(`load average at start: ${loadAverage()}`);
  const rows: string[] = [];
  for (const [label, env] of VARIANTS.filter(([name]) => !process.env.BENCH_MALLOC || process.env.BENCH_MALLOC.split(',').includes(name))) {
    for (const id of chosen) {
      if (!existsSync(join(modelsDir, id === 'minilm-embeddings' ? 'all-MiniLM-L6-v2' : id))) {
        rows.push(`| ${label} | ${id} | not installed (npm run test-models) |||||||||`);
        continue;
      }
      const s = run(id, env);
      const mb = (bytes: number) => (bytes / MB).toFixed(0);
      rows.push(
        `| ${label} | ${id} | ${mb(s.before)} | ${mb(s.loaded)} | ${mb(s.unloaded)} | ${(s.unloaded / s.before).toFixed(3)} | ${mb(s.unloadedAgain)} | ${(s.unloadedAgain / s.before).toFixed(3)} | ${s.measuredLoad === null ? '?' : mb(s.measuredLoad)} | ${mb(s.files)} |`,
      );
    }
  }
  console.log(
    '| malloc | model | before MB | loaded MB | unloaded MB | unloaded ÷ before | after a 2nd cycle MB | 2nd ÷ before | load growth MB (registry) | files MB |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
  console.log(`load average at end: ${loadAverage()}`);
}
