/**
 * A long file through the product's VAD path, windows batched vs one at a time, against
 * faster-whisper with its VAD on: the long file of long-speech.ts (the shared English clips joined
 * with 1.5-s silences), transcribed by the product's transcriber (manifest → engine → ASR worker:
 * Silero VAD v6, speech windows of at most 30 s, decodeWindows) with `vad_filter` on, once with
 * `batchMemoryMb: 0` (windows one at a time) and once with the manifest default (windows side by
 * side, decoder steps batched; the batch is sized to the threads and memory). Both transcribers
 * are loaded and warmed up before any timing; faster-whisper 1.2.1 runs in its own process (beam 5
 * default, vad_filter=True, the same Silero v6 weights). Same threads, nice 0 on every side; rounds
 * alternate the sides. Prints wall and CPU time, WER, whether the two texts of ours are the same,
 * and ratios with the load average. Ours decode as a request with no options does (VAD windows:
 * beam 2); with `--beam N`, with beam_size=N, best_of=N (faster-whisper's default decode). A side
 * of ours greedy (`beam_size=1`), batched, shows what that decode costs over greedy on the file.
 *
 *   tsx scripts/bench/vad-chunks-batch.ts [--minutes 10] [--threads 2] [--rounds 1] [--batch-memory-mb 512]
 *                                         [--variant '{"spinning":false}']  (a third side: batched, these manifest options)
 *                                         [--beam 5]
 *
 * Env: MODELS_DIR (whisper-tiny.en and silero-vad-v6 from `npm run test-models`), EVAL_SPEECH_DIR,
 * TOOLS_PYTHON.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Transcriber } from '../../src/inference/types.js';
import { loadAverage } from '../eval/lib/load-average.js';
import { decodeClipsOnce, joinClips } from '../eval/lib/long-speech.js';
import { loadTranscriber } from '../eval/lib/load-transcriber.js';
import { normalizeTranscript } from '../eval/lib/normalize-transcript.js';
import { readSpeechClips } from '../eval/lib/speech-clips.js';
import { wordErrors } from '../eval/lib/wer.js';
import { ensureFasterWhisper, tinyEnWheelPath } from './baselines/faster-whisper-setup.js';
import { runFasterWhisper } from './long-speech.js';

const RATE = 16_000;
const GOAL_RATIO = 0.7;

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    threads: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '1' },
    'batch-memory-mb': { type: 'string' },
    /** Manifest options (JSON) of a third side of ours, batched, e.g. '{"spinning":false}'. */
    variant: { type: 'string' },
    beam: { type: 'string', default: '0' },
  },
});
const threads = Number(args.threads);
const beamSize = Number(args.beam);
/** The decoding of every side of ours but the greedy one (--beam). */
const decoding = beamSize > 1 ? { beamSize, bestOf: beamSize } : undefined;
const beamLabel = decoding ? `, beam ${beamSize}` : '';

const decoded = await decodeClipsOnce(await readSpeechClips());
const audio = joinClips(decoded, { targetSeconds: Number(args.minutes) * 60, gapSeconds: 1.5 });
const reference = normalizeTranscript(audio.reference);
await ensureFasterWhisper(process.env.TOOLS_PYTHON ?? resolve('.cache/venv/bin/python'), tinyEnWheelPath(resolve('.')));

const load1 = async (batchMemoryMb: number | undefined, extra: Record<string, unknown> = {}): Promise<Transcriber> => {
  const options = { dtype: 'fp32', threads, threadNice: 0, ...(batchMemoryMb === undefined ? {} : { batchMemoryMb }), ...extra };
  return (await loadTranscriber({ modelId: 'whisper-tiny.en', options })).transcriber;
};
const batchMemory = args['batch-memory-mb'] === undefined ? undefined : Number(args['batch-memory-mb']);
interface OurSide {
  transcriber: Transcriber;
  decoding?: { beamSize: number; bestOf: number };
}
const batchedTranscriber = await load1(batchMemory);
const ours = new Map<string, OurSide>([
  [`ours${beamLabel}, windows one at a time`, { transcriber: await load1(0), decoding }],
  [`ours${beamLabel}, windows batched (batchMemoryMb ${batchMemory ?? 'default'})`, { transcriber: batchedTranscriber, decoding }],
]);
if (args.variant)
  ours.set(`ours${beamLabel}, batched, ${args.variant}`, {
    transcriber: await load1(batchMemory, JSON.parse(args.variant) as Record<string, unknown>),
    decoding,
  });
const GREEDY_BATCHED = 'ours greedy (beam_size=1), windows batched';
ours.set(GREEDY_BATCHED, { transcriber: batchedTranscriber, decoding: { beamSize: 1, bestOf: 1 } });
const warmUp = audio.samples.slice(0, 40 * RATE);
for (const { transcriber, decoding } of ours.values())
  await transcriber.transcribe({ samples: warmUp.slice(), sampleRate: RATE }, { vadFilter: true, decoding });

const dir = await mkdtemp(join(tmpdir(), 'vad-chunks-batch-'));
const file = join(dir, 'long.f32');
await writeFile(file, new Uint8Array(audio.samples.buffer, audio.samples.byteOffset, audio.samples.byteLength));
console.log(
  `vad-chunks-batch: whisper-tiny.en fp32, ${threads} threads, nice 0, ${(audio.samples.length / RATE).toFixed(0)} s file (${audio.clips.length} clips), rounds ${args.rounds}; load average ${loadAverage()}`,
);
const sides = new Map<string, { seconds: number; cpuSeconds?: number; text: string }>();
const keep = (name: string, seconds: number, text: string, cpuSeconds?: number) => {
  if (seconds < (sides.get(name)?.seconds ?? Number.POSITIVE_INFINITY)) sides.set(name, { seconds, text, cpuSeconds });
  console.log(`  ${name}: ${seconds.toFixed(2)} s${cpuSeconds === undefined ? '' : `, CPU ${cpuSeconds.toFixed(2)} s`} (load ${loadAverage()})`);
};
const FASTER_WHISPER = 'faster-whisper, vad_filter on';
try {
  for (let round = 0; round < Number(args.rounds); round++) {
    for (const [name, { transcriber, decoding }] of ours) {
      const started = performance.now();
      const cpu = process.cpuUsage(); // the ASR worker and its onnxruntime threads are in this process
      const { text } = await transcriber.transcribe({ samples: audio.samples.slice(), sampleRate: RATE }, { vadFilter: true, decoding });
      const used = process.cpuUsage(cpu);
      keep(name, (performance.now() - started) / 1000, text, (used.user + used.system) / 1e6);
    }
    const fw = await runFasterWhisper(file, { threads, dtype: 'fp32', nice: 0, beamSize: 5, vad: true });
    keep(FASTER_WHISPER, fw.seconds, fw.text, fw.cpuSeconds);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
  for (const transcriber of new Set([...ours.values()].map((side) => side.transcriber))) await transcriber.dispose();
}
const fw = sides.get(FASTER_WHISPER)!;
console.log(`best of ${args.rounds} round(s):`);
for (const [name, side] of sides) {
  const { wer } = wordErrors(reference, normalizeTranscript(side.text));
  const cpu = side.cpuSeconds === undefined ? '' : `  CPU ${side.cpuSeconds.toFixed(2)} s`;
  console.log(`${name.padEnd(48)} WER ${wer.toFixed(3)}  wall ${side.seconds.toFixed(2)} s${cpu}  ${(side.seconds / fw.seconds).toFixed(2)}× faster-whisper`);
}
const [sequential, batched] = [...ours.keys()].map((name) => sides.get(name)!);
const ratio = batched!.seconds / fw.seconds;
console.log(
  `batched / one at a time ${(batched!.seconds / sequential!.seconds).toFixed(2)}×; texts ${batched!.text === sequential!.text ? 'identical' : 'DIFFER'}; ` +
    `batched / faster-whisper ${ratio.toFixed(2)}× (goal ≤ ${GOAL_RATIO}×: ${ratio <= GOAL_RATIO ? 'PASS' : 'FAIL'}); load average ${loadAverage()}`,
);
const greedy = sides.get(GREEDY_BATCHED);
if (greedy)
  console.log(
    `${decoding ? `beam ${beamSize}` : 'default'} batched / greedy batched ${(batched!.seconds / greedy.seconds).toFixed(2)}× wall, ${((batched!.cpuSeconds ?? 0) / (greedy.cpuSeconds ?? 1)).toFixed(2)}× CPU`,
  );
