/**
 * What the speech encoder's worker thread (MP3, Opus, FLAC…: no model) adds to a fresh process:
 * RSS before it starts, and after it has started and encoded one second of MP3, each after a
 * settle; and whether onnxruntime's library ended up mapped. `--onnx-loaded` loads onnxruntime's
 * binding in the main thread first, as a loaded model's worker would have: its library is then
 * already in the process, and what is left is the thread's own share. `--runs` fresh processes each.
 *
 *   flock /tmp/bench.lock sh scripts/server-allocator.sh npx tsx scripts/bench/codec-worker-memory.ts [--runs 5]
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { createSpeechEncoder } from '../../src/inference/text-to-speech/speech-encoder.js';
import { loadAverage } from '../eval/lib/load-average.js';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    'onnx-loaded': { type: 'boolean', default: false },
    /** One measurement in this process (what each run is). */
    child: { type: 'boolean', default: false },
  },
});

if (args.child) {
  console.log(JSON.stringify(await measure(args['onnx-loaded']!)));
} else {
  console.log(`codec worker memory, ${process.env.LD_PRELOAD ? 'jemalloc' : 'glibc'}, load ${loadAverage()}`);
  for (const onnxLoaded of [false, true]) {
    const growth: number[] = [];
    let mapped = false;
    for (let run = 0; run < Number(args.runs); run++) {
      const flags = ['--import', 'tsx', process.argv[1]!, '--child', ...(onnxLoaded ? ['--onnx-loaded'] : [])];
      const sample = JSON.parse(execFileSync(process.execPath, flags, { encoding: 'utf8' }).trim().split('\n').at(-1)!) as Sample;
      growth.push(sample.after - sample.before);
      mapped ||= sample.onnxMapped;
    }
    const sorted = [...growth].sort((a, b) => a - b);
    console.log(
      `  ${onnxLoaded ? 'onnxruntime already loaded' : 'no onnxruntime before'}: worker +${sorted.map((mb) => mb.toFixed(1)).join(' / ')} MB (median +${sorted[sorted.length >> 1]!.toFixed(1)}); onnxruntime mapped after: ${mapped}`,
    );
  }
  console.log(`load ${loadAverage()}`);
}

interface Sample {
  before: number;
  after: number;
  onnxMapped: boolean;
}

async function measure(onnxLoaded: boolean): Promise<Sample> {
  const rss = () => process.memoryUsage.rss() / 2 ** 20;
  const settle = () => new Promise((resolve) => setTimeout(resolve, 1500));
  const onnxMapped = () => readFileSync('/proc/self/maps', 'utf8').includes('libonnxruntime');
  if (onnxLoaded) createRequire(import.meta.url)('onnxruntime-node/dist/binding');
  await settle();
  const before = rss();
  const encoder = createSpeechEncoder();
  const release = encoder.keepWarm();
  const stream = await encoder.openStream('mp3', 22_050);
  await stream.encode(Float32Array.from({ length: 22_050 }, (_, i) => 0.3 * Math.sin((2 * Math.PI * 440 * i) / 22_050)));
  await stream.finish();
  await settle();
  const sample = { before, after: rss(), onnxMapped: onnxMapped() };
  release();
  await encoder.dispose();
  return sample;
}
