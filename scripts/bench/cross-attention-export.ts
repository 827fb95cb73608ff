/**
 * Does exporting the decoder's cross-attention (for word timestamps) slow plain transcription?
 * The same whisper-tiny.en weights from two installs: OLD_MODELS_DIR (the recipe without
 * `cross_attentions.N` outputs) and MODELS_DIR (with them), both loaded as the server loads them,
 * three interleaved rounds over the English clips (json: transformers.js's decode) and the first
 * clip three times over (long-form: our window decoder); best round of each, as a ratio new/old.
 *
 *   OLD_MODELS_DIR=/path/to/old/models tsx scripts/bench/cross-attention-export.ts [--dtype fp32|q8]
 */
import { parseArgs } from 'node:util';
import { decodeAudio } from '../../src/audio/decode-audio.js';
import { resample } from '../../src/audio/resample.js';
import type { Transcriber } from '../../src/inference/types.js';
import { loadAverage } from '../eval/lib/load-average.js';
import { loadTranscriber } from '../eval/lib/load-transcriber.js';
import { readSpeechClips } from '../eval/lib/speech-clips.js';

const RATE = 16_000;
const { values: args } = parseArgs({ options: { dtype: { type: 'string', default: 'fp32' } } });
const oldDir = process.env.OLD_MODELS_DIR;
if (!oldDir) throw new Error('set OLD_MODELS_DIR to a models folder with the older whisper-tiny.en install');

const clips = await Promise.all(
  (await readSpeechClips()).map(async (clip) => {
    const pcm = clip.pcm ?? (await decodeAudio(clip.bytes!, { maxSeconds: 600, sampleRate: RATE }));
    return resample(pcm.samples, pcm.sampleRate, RATE);
  }),
);
const long = new Float32Array(clips[0]!.length * 3);
for (let copy = 0; copy < 3; copy++) long.set(clips[0]!, copy * clips[0]!.length);

const newDir = process.env.MODELS_DIR ?? 'models';
const loadFrom = async (dir: string): Promise<Transcriber> => {
  process.env.MODELS_DIR = dir;
  return (await loadTranscriber({ modelId: 'whisper-tiny.en', options: { dtype: args.dtype, threads: 1 } })).transcriber;
};
const sides = { old: await loadFrom(oldDir), new: await loadFrom(newDir) };
const wall = { old: { clips: [] as number[], long: [] as number[] }, new: { clips: [] as number[], long: [] as number[] } };
console.log(`cross-attention export cost, whisper-tiny.en ${args.dtype}, 1 thread; load average ${loadAverage()}`);
try {
  for (let round = 0; round < 3; round++) {
    for (const side of ['old', 'new'] as const) {
      let started = performance.now();
      for (const clip of clips) await sides[side].transcribe({ samples: clip.slice(), sampleRate: RATE }, { vadFilter: false });
      wall[side].clips.push(performance.now() - started);
      started = performance.now();
      await sides[side].transcribe({ samples: long.slice(), sampleRate: RATE }, { vadFilter: false });
      wall[side].long.push(performance.now() - started);
    }
  }
} finally {
  await Promise.all([sides.old.dispose(), sides.new.dispose()]);
}
const best = (values: number[]) => Math.min(...values);
for (const part of ['clips', 'long'] as const) {
  console.log(
    `  ${part === 'clips' ? '12 clips, json' : '33 s, long-form'}: old ${best(wall.old[part]).toFixed(0)} ms, new ${best(wall.new[part]).toFixed(0)} ms, ratio new/old ${(best(wall.new[part]) / best(wall.old[part])).toFixed(3)}`,
  );
}
console.log(`load average ${loadAverage()}`);
