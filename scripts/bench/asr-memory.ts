/**
 * Where the ASR model's memory goes: RSS of one fresh process (all threads: main, ASR worker,
 * VAD, onnxruntime's pool share it) at each step of loading and using whisper-tiny.en:
 *
 *   node dist/scripts/bench/asr-memory.js [--dtype fp32|q8|JSON] [--memory-arena on|off] [--threads N] [--minutes 2] [--vad]
 *   node dist/scripts/bench/asr-memory.js --sessions [--dtype fp32|q8] [--memory-arena on|off] [--mem-pattern on|off] [--opt basic|…] [--config session.disable_prepacking=1]
 *
 * Default mode: RSS before the load, after it, after a 30-s window, after the long file (the
 * English clips joined as in long-speech.ts), with the peak (getrusage maxrss, a high-water mark).
 * `--sessions`: the bare onnxruntime sessions (encoder, merged decoder) created from their files,
 * without transformers.js, to tell the weights' cost from the rest.
 * "model RSS" = RSS after the long file − RSS before the load (what the model adds to a server).
 * Run it compiled, as the server runs (`npx tsc -p . && node dist/scripts/bench/asr-memory.js …`):
 * under tsx every thread importing transformers.js holds more (docs/benchmarks.md, "Memory"),
 * which the server does not.
 * Run under `MALLOC_ARENA_MAX=2` to see glibc's per-thread arenas' share. One process per run:
 * RSS is a process-wide figure, so compare runs side by side, with `uptime` alongside.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultThreads } from '../../src/inference/speech-to-text/asr-options.js';
import { loadAverage } from '../eval/lib/load-average.js';
import { decodeClipsOnce, joinClips } from '../eval/lib/long-speech.js';
import { loadTranscriber, modelsDir } from '../eval/lib/load-transcriber.js';
import { readSpeechClips } from '../eval/lib/speech-clips.js';

const MODEL_ID = 'whisper-tiny.en';

const { values: args } = parseArgs({
  options: {
    dtype: { type: 'string', default: 'fp32' },
    'memory-arena': { type: 'string' },
    'mem-pattern': { type: 'string' },
    opt: { type: 'string' },
    threads: { type: 'string', default: String(defaultThreads()) },
    minutes: { type: 'string', default: '2' },
    vad: { type: 'boolean', default: false },
    sessions: { type: 'boolean', default: false },
    /** onnxruntime session config entries, e.g. session.disable_prepacking=1 (repeatable). */
    config: { type: 'string', multiple: true, default: [] },
  },
});
const onOff = (value: string | undefined) => (value === undefined ? undefined : value === 'on');
const memoryArena = onOff(args['memory-arena']);
const threads = Number(args.threads);

/** Resident set of the whole process, from the kernel (not V8's heap figures). */
const rssMb = () => process.memoryUsage.rss() / 2 ** 20;
const peakMb = () => process.resourceUsage().maxRSS / 1024;
const rows: Array<[string, number, number]> = [];
const mark = (step: string) => rows.push([step, rssMb(), peakMb()]);

/** `a.b.c=v` entries as the nested object onnxruntime-node's `extra` option takes. */
function configEntries(entries: readonly string[]): Record<string, unknown> {
  const extra: Record<string, unknown> = {};
  for (const entry of entries) {
    const [key, value] = entry.split('=') as [string, string];
    const path = key.split('.');
    let node = extra;
    for (const part of path.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
    node[path[path.length - 1]!] = value;
  }
  return extra;
}

async function settle(): Promise<void> {
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((resolve) => setTimeout(resolve, 200));
}

if (args.sessions) {
  const ort = await import('onnxruntime-node');
  const suffix = args.dtype === 'q8' ? '_quantized' : '';
  const options = {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    ...(memoryArena === undefined ? {} : { enableCpuMemArena: memoryArena }),
    ...(onOff(args['mem-pattern']) === undefined ? {} : { enableMemPattern: onOff(args['mem-pattern']) }),
    ...(args.opt ? { graphOptimizationLevel: args.opt as 'disabled' | 'basic' | 'extended' | 'all' } : {}),
    extra: configEntries(args.config!),
  };
  mark('before sessions');
  const dir = join(modelsDir(), MODEL_ID, 'onnx');
  const encoder = await ort.InferenceSession.create(join(dir, `encoder_model${suffix}.onnx`), options);
  await settle();
  mark('encoder session');
  const decoder = await ort.InferenceSession.create(join(dir, `decoder_model_merged${suffix}.onnx`), options);
  await settle();
  mark('+ merged decoder session');
  await encoder.release();
  await decoder.release();
  await settle();
  mark('released');
} else {
  const decoded = await decodeClipsOnce(await readSpeechClips());
  const long = joinClips(decoded, { targetSeconds: Number(args.minutes) * 60, gapSeconds: 1.5 });
  const window = long.samples.slice(0, 30 * 16_000);
  await settle();
  mark('before load (audio decoded)');
  const { transcriber } = await loadTranscriber({
    modelId: MODEL_ID,
    options: { dtype: args.dtype!.startsWith('{') ? JSON.parse(args.dtype!) : args.dtype, threads, ...(memoryArena === undefined ? {} : { memoryArena }) },
  });
  await settle();
  mark('after load');
  await transcriber.transcribe({ samples: window, sampleRate: 16_000 }, { vadFilter: false });
  await settle();
  mark('after a 30-s window');
  const started = performance.now();
  await transcriber.transcribe({ samples: long.samples, sampleRate: 16_000 }, { vadFilter: args.vad });
  const seconds = (performance.now() - started) / 1000;
  await settle();
  mark(`after the ${args.minutes}-min file (${seconds.toFixed(1)} s)`);
  await transcriber.dispose();
  await settle();
  mark('after dispose');
}

const base = rows[0]![1];
const arena = memoryArena === undefined ? 'default' : memoryArena ? 'on' : 'off';
console.log(
  `asr-memory: ${MODEL_ID} ${args.dtype}, threads ${threads}, memoryArena ${arena}, MALLOC_ARENA_MAX ${process.env.MALLOC_ARENA_MAX ?? 'unset'}, load average ${loadAverage()}`,
);
console.log(`${'step'.padEnd(36)} ${'RSS MB'.padStart(8)} ${'+ MB'.padStart(8)} ${'peak MB'.padStart(8)}`);
for (const [step, rss, peak] of rows)
  console.log(`${step.padEnd(36)} ${rss.toFixed(0).padStart(8)} ${(rss - base).toFixed(0).padStart(8)} ${peak.toFixed(0).padStart(8)}`);
