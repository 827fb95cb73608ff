/**
 * What one Piper run holds: RSS of a fresh process (under the allocator `npm start` picks, when run
 * through scripts/server-allocator.sh) before the voice runs, at its peak and after, for one piece of
 * `--phonemes` phonemes of "1% 1% …" at `--speed`, `--runs` times. This is what chose PIECE_PHONEMES
 * (phoneme-pieces.ts) and the voice's arena setting (docs/benchmarks.md, "Text to speech").
 *
 *   sh scripts/server-allocator.sh npx tsx scripts/bench/tts-piece-memory.ts --phonemes 200 --speed 0.25 [--arena on|off] [--runs 3]
 *   npx tsx scripts/bench/tts-piece-memory.ts --time-arena [--runs 5]   (time per sentence, arena on ÷ off)
 *   npx tsx scripts/bench/tts-piece-memory.ts --durations [--phonemes 200]   (audio of the first piece of odd texts)
 */
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { PiperPhonemizer } from '../../src/inference/text-to-speech/piper-phonemizer.js';
import { PiperVoice } from '../../src/inference/text-to-speech/piper-voice.js';
import { loadAverage } from '../eval/lib/load-average.js';

const { values: args } = parseArgs({
  options: {
    phonemes: { type: 'string', default: '200' },
    speed: { type: 'string', default: '1' },
    arena: { type: 'string' },
    runs: { type: 'string', default: '3' },
    /** Seconds of audio a piece of `--phonemes` makes, for texts that stretch phonemes (pauses, numbers, spelling). */
    durations: { type: 'boolean', default: false },
    /** Time instead: the arena on against off on ordinary sentences, alternating, `--runs` rounds. */
    'time-arena': { type: 'boolean', default: false },
    text: { type: 'string', default: Array.from({ length: 1600 }, () => '1%').join(' ') },
  },
});
const dir = join(process.env.MODELS_DIR ?? 'models', 'piper-en_US-joe-medium');
const MB = 2 ** 20;
const rss = () => process.memoryUsage.rss() / MB;
const peak = () => process.resourceUsage().maxRSS / 1024;
const settle = () => new Promise((resolve) => setTimeout(resolve, 2500));

const phonemizer = await PiperPhonemizer.load(join(dir, 'en_US-joe-medium.onnx.json'));
if (args.durations) {
  await durations();
  process.exit(0);
}
if (args['time-arena']) {
  await timeArena();
  process.exit(0);
}
const [ids] = await phonemizer.pieces(args.text!, Number(args.phonemes));
const voice = await PiperVoice.load(dir, {
  phonemize: false,
  ...(args.arena === undefined ? {} : { memoryArena: args.arena === 'on' }),
});
await voice.synthesizeIds(ids!.slice(0, 21).concat(ids!.at(-1)!)); // warm: a short run
await settle();
const before = rss();
const rows: string[] = [];
for (let run = 0; run < Number(args.runs); run++) {
  const started = performance.now();
  const audio = await voice.synthesizeIds(ids!, { speed: Number(args.speed) });
  const ms = performance.now() - started;
  rows.push(`run ${run + 1}: ${(audio.length / voice.sampleRate).toFixed(1)} s of audio in ${ms.toFixed(0)} ms`);
}
const top = peak();
await settle();
console.log(
  `piece of ${args.phonemes} phonemes (${ids!.length} ids), speed ${args.speed}, arena ${args.arena ?? 'default'}, ${process.env.LD_PRELOAD ? 'jemalloc' : 'glibc'}, load ${loadAverage()}`,
);
for (const row of rows) console.log(`  ${row}`);
console.log(`  RSS before ${before.toFixed(0)} MB, peak +${(top - before).toFixed(0)} MB, after +${(rss() - before).toFixed(0)} MB`);
await voice.dispose();

/** Ordinary sentences through two sessions of the voice, the arena on and off, alternating; total time each. */
async function timeArena(): Promise<void> {
  const sentences = [
    'The birch canoe slid on the smooth planks.',
    'Glue the sheet to the dark blue background, then let it dry overnight before you frame it.',
    'On 12 May 2024 at 7:30 pm, Dr. Smith paid $1,250.75 for 3.5 kg of apples.',
    'It is easy to tell the depth of a well.',
    'Four hours of steady work faced us, and nobody among the crew complained about the weather or the food.',
  ];
  const ids = await Promise.all(sentences.map((sentence) => phonemizer.ids(sentence)));
  const voices = {
    on: await PiperVoice.load(dir, { phonemize: false, memoryArena: true }),
    off: await PiperVoice.load(dir, { phonemize: false, memoryArena: false }),
  };
  const totals = { on: 0, off: 0 };
  for (let round = -1; round < Number(args.runs); round++) {
    for (const side of (round % 2 ? ['on', 'off'] : ['off', 'on']) as Array<'on' | 'off'>) {
      for (const piece of ids) {
        const started = performance.now();
        await voices[side].synthesizeIds(piece);
        if (round >= 0) totals[side] += performance.now() - started;
      }
    }
  }
  console.log(
    `arena on ${totals.on.toFixed(0)} ms, off ${totals.off.toFixed(0)} ms: off ÷ on ${(totals.off / totals.on).toFixed(3)} (${args.runs} rounds of ${sentences.length} sentences, load ${loadAverage()})`,
  );
  await Promise.all([voices.on.dispose(), voices.off.dispose()]);
}

/** The first piece of each text, at speed 1: how many seconds of audio `--phonemes` phonemes can make. */
async function durations(): Promise<void> {
  const voice = await PiperVoice.load(dir, { phonemize: false });
  const repeat = (text: string, times = 300) => Array.from({ length: times }, () => text).join(' ');
  const texts: Record<string, string> = {
    '1%': repeat('1%'),
    'a,': repeat('a,'),
    'a...': repeat('a...'),
    'so;': repeat('so;'),
    'a?': repeat('a?'),
    'Oh!': repeat('Oh!'),
    hmm: repeat('hmm'),
    '7': repeat('7'),
    '1,000,000': repeat('1,000,000'),
    '$1.50': repeat('$1.50'),
    '1999.': repeat('1999.'),
    '1st': repeat('1st'),
    www: repeat('www'),
    zzz: repeat('zzzzzzzzzzzzzzzz', 30),
    'x × 2000': 'x'.repeat(2000),
    prose: repeat('The birch canoe slid on the smooth planks.', 20),
  };
  console.log(`first piece of ${args.phonemes} phonemes at speed 1, load ${loadAverage()}`);
  for (const [name, text] of Object.entries(texts)) {
    const [ids] = await phonemizer.pieces(text.slice(0, 3000), Number(args.phonemes));
    if (!ids) continue;
    const audio = await voice.synthesizeIds(ids);
    console.log(`  ${name.padEnd(10)} ${((ids.length - 3) / 2).toFixed(0).padStart(4)} phonemes: ${(audio.length / voice.sampleRate).toFixed(1)} s`);
  }
  await voice.dispose();
}
