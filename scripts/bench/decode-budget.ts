/**
 * `tsx scripts/bench/decode-budget.ts [--src <checkout>] [--only a,b]`: what small uploads that
 * claim an hour cost the speech worker's decode (decodeAudio16, the default 60-minute limit):
 * the filler files of test/audio/claimed-hour-audio.ts and FLAC frames of silence, each with its
 * size, wall and CPU time and how it ended. `--src` decodes with another checkout's src/audio
 * (`git archive <commit> | tar -x -C /tmp/before`, plus a node_modules link), for before/after
 * figures from the same files.
 * Then the densest honest input: digital silence from real encoders, as decoded frames per
 * byte, against the budget. Print `uptime` with the figures: the machine is shared.
 */
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createEncoder } from 'wasm-media-encoders';
import { MAX_FRAMES_PER_INPUT_BYTE } from '../../src/audio/decode-budget.js';
import { MediaStreamEncoder, type MediaFormat } from '../../src/audio/encode-media.js';
import { encodeMp3 } from '../../src/audio/encode-mp3.js';
import { flacSilence } from '../../test/audio/audio-test-helpers.js';
import * as filler from '../../test/audio/claimed-hour-audio.js';

const { values } = parseArgs({ options: { src: { type: 'string' }, only: { type: 'string' } } });
const root = resolve(values.src ?? new URL('../../', import.meta.url).pathname);
const { decodeAudio16 } = (await import(`${root}/src/audio/decode-audio.ts`)) as typeof import('../../src/audio/decode-audio.js');
const { quietDecoderLogs } = (await import(`${root}/src/audio/quiet-decoder-logs.ts`)) as typeof import('../../src/audio/quiet-decoder-logs.js');
quietDecoderLogs();

const CLAIM = 3660;
const FILES: Record<string, () => Uint8Array> = {
  'webm-opus-concealment': () => filler.webmConcealment(CLAIM),
  'ogg-opus-2-byte-120-ms': () => filler.oggOpusConcealment(CLAIM, filler.opusConcealmentPacket(6), 0.12),
  'ogg-opus-empty-packets': () => filler.oggOpusConcealment(CLAIM, new Uint8Array(0)),
  'ogg-opus-toc-only-20-ms': () => filler.oggOpusConcealment(CLAIM),
  'mp4-overlapping-chunks': () => filler.mp4OverlappingChunks(CLAIM),
  'adts-8k-minimal-frames': () => filler.adtsSilence(CLAIM, 8000),
  'flac-8k-mono-65535': () => flacSilence({ sampleRate: 8000, channels: 1, seconds: CLAIM }),
  'flac-384k-8ch-65535': () => flacSilence({ sampleRate: 384_000, channels: 8, seconds: CLAIM }),
};
const only = values.only?.split(',');

console.log(`uptime: ${execFileSync('uptime').toString().trim()}`);
console.log(`\nFiller claiming ${CLAIM} s, decoded with ${root}/src/audio`);
for (const [name, make] of Object.entries(FILES)) {
  if (only && !only.includes(name)) continue;
  const bytes = make();
  const started = performance.now();
  const cpu = process.cpuUsage();
  let outcome: string;
  try {
    const pcm = await decodeAudio16(bytes, { sampleRate: 16_000, maxSeconds: 3600 });
    outcome = `decoded ${(pcm.length / 16_000).toFixed(0)} s`;
  } catch (error) {
    outcome = `${(error as { status?: number }).status ?? '?'} ${(error as Error).message.slice(0, 100)}`;
  }
  const used = process.cpuUsage(cpu);
  const wall = (performance.now() - started) / 1000;
  console.log(
    `${name.padEnd(24)} ${String(bytes.length).padStart(7)} B  wall ${wall.toFixed(2).padStart(6)} s  cpu ${((used.user + used.system) / 1e6).toFixed(2).padStart(6)} s  ${outcome}`,
  );
}
console.log(`uptime: ${execFileSync('uptime').toString().trim()}`);

console.log(`\nDigital silence from real encoders, 120 s: decoded frames per byte (budget ${MAX_FRAMES_PER_INPUT_BYTE})`);
const SECONDS = 120;
const density = (name: string, bytes: number, frames: number) =>
  console.log(`${name.padEnd(32)} ${String(bytes).padStart(7)} B  ${(frames / bytes).toFixed(0).padStart(5)} frames/B`);
for (const [format, rate] of [
  ['opus', 48_000],
  ['flac', 8000],
  ['flac', 48_000],
  ['aac', 8000],
  ['aac', 48_000],
] as [MediaFormat, number][]) {
  const encoder = await MediaStreamEncoder.open(format, rate);
  let bytes = 0;
  for (let second = 0; second < SECONDS; second++) bytes += (await encoder.encode(new Float32Array(rate))).length;
  bytes += (await encoder.finish()).length;
  density(`${format} ${rate} Hz (ours)`, bytes, SECONDS * (format === 'opus' ? 48_000 : rate));
}
const vorbis = await WebAssembly.compile(await readFile(createRequire(import.meta.url).resolve('wasm-media-encoders/wasm/ogg')));
for (const [rate, quality] of [
  [16_000, 3],
  [48_000, 3],
  [48_000, -1],
  [96_000, -1],
]) {
  const encoder = await createEncoder('audio/ogg', vorbis);
  encoder.configure({ channels: 2, sampleRate: rate!, vbrQuality: quality });
  let bytes = 0;
  const second = [new Float32Array(rate!), new Float32Array(rate!)];
  for (let i = 0; i < SECONDS; i++) bytes += encoder.encode(second).length;
  bytes += encoder.finalize().length;
  density(`vorbis ${rate} Hz stereo q${quality}`, bytes, SECONDS * rate!);
}
const mp3 = await encodeMp3({ samples: new Float32Array(8000 * SECONDS), sampleRate: 8000 }, 8);
density('mp3 8000 Hz 8 kbit/s', mp3.length, SECONDS * 8000);
process.exit(0);
