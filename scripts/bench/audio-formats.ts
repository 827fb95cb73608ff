/**
 * `tsx scripts/bench/audio-formats.ts [--rounds 20]`: the recorder formats' decoders and the new
 * speech encoders against the ones already in use, measured in the same run on the same audio.
 *
 * Decode: each recorder fixture (test/fixtures/audio/speech-*) and, as baselines, the same
 * clips' existing formats (the shared WAV; Ogg Opus and MP3 baselines are the shared FLEURS
 * Ogg clip and jfk.mp3), decoded to 16 kHz `rounds` times; reported as milliseconds per second
 * of audio and as a ratio to Ogg Opus (the nearest existing codec). Encode: 10 s of speech
 * (jfk at 22.05 kHz, Piper's rate) through each stream encoder in 1-s pieces, as ms per second
 * of audio and as a ratio to our MP3 (LAME) encoder; the first stream's opening (WASM load,
 * encoder thread start) is reported apart. Print `uptime` with the figures: the machine is shared.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { decodeAudio } from '../../src/audio/decode-audio.js';
import { createMp3StreamEncoder } from '../../src/audio/encode-mp3.js';
import { MediaStreamEncoder, type MediaFormat } from '../../src/audio/encode-media.js';
import { resample } from '../../src/audio/resample.js';
import { evalSetDir } from '../eval/lib/eval-data.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '20' } } });
const rounds = Math.max(1, Math.min(200, Number(values.rounds)));
const ROOT = new URL('../../', import.meta.url).pathname;
const FIXTURES = join(ROOT, 'test/fixtures/audio');
const SPEECH = evalSetDir('speech');

async function decodeRate(bytes: Uint8Array): Promise<{ msPerSecond: number; seconds: number }> {
  const first = await decodeAudio(bytes, { sampleRate: 16000, maxSeconds: 600 });
  const seconds = first.samples.length / 16000;
  const start = performance.now();
  for (let i = 0; i < rounds; i++) await decodeAudio(bytes, { sampleRate: 16000, maxSeconds: 600 });
  return { msPerSecond: (performance.now() - start) / rounds / seconds, seconds };
}

console.log(`uptime: ${execFileSync('uptime').toString().trim()}`);
console.log(`\nDecode to 16 kHz mono, ${rounds} rounds each (ms per second of audio; ratio to Ogg Opus)`);
const baseline = await decodeRate(readFileSync(join(SPEECH, 'en_fleurs_003.ogg')));
const rows: [string, { msPerSecond: number; seconds: number }][] = [
  ['en_fleurs_003.ogg (Ogg Opus, baseline)', baseline],
  ['en_jfk.mp3 (MP3)', await decodeRate(readFileSync(join(SPEECH, 'en_jfk.mp3')))],
];
for (const name of [
  'speech-16k-mono-opus.webm',
  'speech-48k-stereo-opus-live.webm',
  'speech-16k-mono-aac.mka',
  'speech-44k1-mono-aac.m4a',
  'speech-48k-stereo-aac-fragmented.mp4',
  'speech-22k05-mono.aac',
  'speech-16k-mono-alac.m4a',
  'speech-16k-mono-vorbis.webm',
]) {
  rows.push([name, await decodeRate(readFileSync(join(FIXTURES, name)))]);
}
for (const [name, { msPerSecond, seconds }] of rows) {
  console.log(
    `  ${name.padEnd(42)} ${seconds.toFixed(1).padStart(5)} s  ${msPerSecond.toFixed(2).padStart(6)} ms/s  ×${(msPerSecond / baseline.msPerSecond).toFixed(2)}`,
  );
}

console.log('\nEncode 10 s of speech at 22.05 kHz (24 kHz for Opus) in 1-s pieces (ms per second of audio; ratio to MP3/LAME)');
const jfk = await decodeAudio(readFileSync(join(SPEECH, 'en_jfk.wav')), { sampleRate: 22050, maxSeconds: 60 });
const speech = jfk.samples.subarray(0, 22050 * 10);
async function encodeRate(
  open: () => Promise<{ encode(s: Float32Array): Uint8Array | Promise<Uint8Array>; finish(): Uint8Array | Promise<Uint8Array> }>,
  input: Float32Array,
  rate: number,
) {
  // The first stream pays the encoder's loading (WASM compile, encoder thread start): timed apart.
  const openStart = performance.now();
  const first = await open();
  await first.encode(input.subarray(0, rate));
  await first.finish();
  const openMs = performance.now() - openStart;
  const start = performance.now();
  let bytes = 0;
  const encodeRounds = Math.max(1, Math.round(rounds / 4));
  for (let r = 0; r < encodeRounds; r++) {
    const encoder = await open();
    for (let at = 0; at < input.length; at += rate) bytes += (await encoder.encode(input.subarray(at, at + rate))).length;
    bytes += (await encoder.finish()).length;
  }
  const seconds = input.length / rate;
  return { openMs, msPerSecond: (performance.now() - start) / encodeRounds / seconds, kbps: (bytes * 8) / encodeRounds / seconds / 1000 };
}
const mp3 = await encodeRate(() => createMp3StreamEncoder({ sampleRate: 22050 }), speech, 22050);
const opusInput = resample(speech, 22050, 24000);
const encoders: [string, Awaited<ReturnType<typeof encodeRate>>][] = [['mp3 (LAME, baseline)', mp3]];
for (const format of ['opus', 'flac', 'aac'] as MediaFormat[]) {
  const rate = format === 'opus' ? 24000 : 22050;
  encoders.push([format, await encodeRate(() => MediaStreamEncoder.open(format, rate), format === 'opus' ? opusInput : speech, rate)]);
}
for (const [name, { openMs, msPerSecond, kbps }] of encoders) {
  console.log(
    `  ${name.padEnd(22)} first 1-s stream ${openMs.toFixed(0).padStart(5)} ms  ${msPerSecond.toFixed(2).padStart(6)} ms/s  ×${(msPerSecond / mp3.msPerSecond).toFixed(2)}  ${kbps.toFixed(0)} kbit/s`,
  );
}
console.log(`uptime: ${execFileSync('uptime').toString().trim()}`);
