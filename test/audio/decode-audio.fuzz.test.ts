/**
 * Fuzzes decodeAudio with mutated copies of small valid files (WAV, MP3, FLAC, Ogg Opus, Ogg
 * Vorbis; and, in their own property, the recorder containers WebM, MP4/M4A and ADTS) and with WAV headers built from random fields. Whatever the bytes, decodeAudio must
 * either return finite samples at the requested rate or throw an AppError with status 400 or
 * 413 and a message free of library internals: never another error, never a hang (each case
 * runs in a worker under a time cap) and never unbounded memory (the process's peak resident
 * size is watched during every case and across the run).
 *
 * FUZZ_RUNS sets the cases per property (default 60: the file runs in a few seconds);
 * FUZZ_SEED replays a run.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../src/errors.js';
import { AUDIO_FIXTURES, flacSilence, resignOggPages, wavBytes, type WavFields } from './audio-test-helpers.js';
import { IsolatedAudio, type IsolatedResult } from './isolated-audio.js';
import { RECORDER_FIXTURES } from './recorder-fixtures.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const OPTIONS = { sampleRate: 16000, maxSeconds: 60 };
/** Valid inputs decode in milliseconds; anything near this is a hang. */
const CASE_TIMEOUT_MS = 10_000;
const MB = 1024 * 1024;
/** Per case: the output is ≤ 60 s at 16 kHz (3.8 MB); one decoder call's output stays far below this. */
const CASE_MEMORY_BUDGET = 256 * MB;
/** Across the run: decoders that were not freed would add up. */
const RUN_MEMORY_BUDGET = 512 * MB;
const LIBRARY_MESSAGE = /DataView|RangeError|out of bounds|outside the bounds|offset|wasm|memory access|undefined|NaN|Cannot read/i;

const SEEDS: Readonly<Record<string, Uint8Array>> = {
  ...Object.fromEntries(
    [
      'tone-22k05-stereo-24bit.wav',
      'tone-8k-mono-ulaw.wav',
      'tone-44k1-stereo.mp3',
      'tone-44k1-stereo.flac',
      'tone-48k-stereo-opus.ogg',
      'tone-44k1-stereo-vorbis.ogg',
    ].map((name) => [name, new Uint8Array(readFileSync(join(AUDIO_FIXTURES, name)))]),
  ),
  'pcm8-8k.wav': wavBytes({ sampleRate: 8000, bitsPerSample: 8, data: Uint8Array.from({ length: 800 }, (_, i) => 128 + ((i * 37) % 64)) }),
  'float32-48k.wav': wavBytes({ sampleRate: 48000, bitsPerSample: 32, formatTag: 3, data: new Uint8Array(new Float32Array(480).fill(0.5).buffer) }),
  'silence-96k-8ch.flac': flacSilence({ sampleRate: 96000, channels: 8, seconds: 2, blockSize: 4096 }),
};

/** WebM (Opus, Vorbis, AAC), MP4 (AAC, ALAC; plain and fragmented) and ADTS: our own container parsers in front of libopus, libvorbis, FAAD2 and the ALAC decoder. */
const RECORDER_SEEDS: Readonly<Record<string, Uint8Array>> = Object.fromEntries(
  RECORDER_FIXTURES.map(([name]) => [name, new Uint8Array(readFileSync(join(AUDIO_FIXTURES, name)))]),
);

/** Header-sized numbers that break parsers: zero, one, sign bits, all ones. */
const EDGE_UINT32 = [0, 1, 2, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff];

/** A header field of a seed: where it is and how many bytes it has. */
interface Field {
  at: number;
  size: number;
}

/**
 * The header fields a decoder sizes things from (rates, channels, block sizes, chunk sizes),
 * found in each seed, so that mutations hit them far more often than random offsets would.
 */
function headerFields(bytes: Uint8Array): Field[] {
  const find = (text: string | number[]) => Buffer.from(bytes).indexOf(Buffer.from(text as string));
  const fields: Field[] = [];
  const add = (base: number, ...layout: [number, number][]) => {
    if (base >= 0) for (const [at, size] of layout) fields.push({ at: base + at, size });
  };
  // WAV: fmt size, format tag, channels, rate, byte rate, block alignment, bits; data size.
  add(find('fmt '), [4, 4], [8, 2], [10, 2], [12, 4], [16, 4], [20, 2], [22, 2]);
  add(find('data'), [4, 4]);
  // FLAC STREAMINFO: block sizes, frame sizes, rate/channels/bits; the first frame's codes.
  if (find('fLaC') === 0) add(0, [8, 2], [10, 2], [12, 3], [15, 3], [18, 2], [20, 1], [21, 1], [42, 4]);
  // Ogg: OpusHead channels, pre-skip, input rate, mapping family; Vorbis channels, rate, block sizes.
  add(find('OpusHead'), [9, 1], [10, 2], [12, 4], [18, 1]);
  add(find([1, ...Buffer.from('vorbis')]), [11, 1], [12, 4], [28, 1]);
  // MPEG: the first frame header's version/layer, bitrate/rate and channel mode bytes.
  const mpeg = find([0xff, 0xfb]);
  add(mpeg, [1, 1], [2, 1], [3, 1]);
  // MP4 boxes: the size, then version/flags and the first fields of the body (entry counts,
  // sample sizes, chunk offsets, fragment flags and data offsets, the AAC configuration).
  for (const box of ['moov', 'trak', 'stsd', 'mp4a', 'esds', 'alac', 'stsz', 'stco', 'stsc', 'tfhd', 'trun', 'moof', 'mdat']) {
    add(find(box) - 4, [0, 4], [8, 4], [12, 4], [16, 4], [20, 4]);
  }
  // EBML: the size bytes after the Segment, Tracks and Cluster ids and a SimpleBlock's header.
  for (const id of [
    [0x18, 0x53, 0x80, 0x67],
    [0x16, 0x54, 0xae, 0x6b],
    [0x1f, 0x43, 0xb6, 0x75],
  ])
    add(find(id), [4, 1], [5, 4]);
  add(find([0x63, 0xa2]), [2, 1], [3, 2]);
  add(find([0xa3]), [1, 1], [2, 1], [5, 1], [6, 1]);
  // ADTS: profile/rate/channels, frame length, raw block count.
  if (bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xf6) === 0xf0) add(0, [1, 1], [2, 1], [3, 1], [4, 1], [5, 1], [6, 1]);
  return fields;
}

type Mutation =
  | { kind: 'field'; field: number; value: number }
  | { kind: 'byte'; at: number; value: number }
  | { kind: 'uint32'; at: number; value: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'insert'; at: number; bytes: Uint8Array }
  | { kind: 'delete'; at: number; count: number }
  | { kind: 'repeat'; at: number; count: number; times: number };

/** Positions are fractions of the length, or absolute offsets into the first 64 bytes (headers). */
const position = fc.oneof(fc.integer({ min: 0, max: 63 }), fc.double({ min: 0, max: 1, noNaN: true }));
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('field' as const), field: fc.nat(), value: fc.oneof(fc.constantFrom(...EDGE_UINT32), fc.nat()) }), weight: 3 },
  fc.record({ kind: fc.constant('byte' as const), at: position, value: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('uint32' as const), at: position, value: fc.oneof(fc.constantFrom(...EDGE_UINT32), fc.nat()) }),
  fc.record({ kind: fc.constant('truncate' as const), at: position }),
  fc.record({ kind: fc.constant('insert' as const), at: position, bytes: fc.uint8Array({ minLength: 1, maxLength: 16 }) }),
  fc.record({ kind: fc.constant('delete' as const), at: position, count: fc.integer({ min: 1, max: 64 }) }),
  fc.record({ kind: fc.constant('repeat' as const), at: position, count: fc.integer({ min: 1, max: 512 }), times: fc.integer({ min: 2, max: 64 }) }),
);

function offset(at: number, length: number): number {
  return Number.isInteger(at) ? Math.min(at, length) : Math.floor(at * length);
}

function mutate(seed: Uint8Array, mutations: readonly Mutation[]): Uint8Array {
  let bytes = seed.slice();
  for (const m of mutations) {
    if (m.kind === 'field') {
      const fields = headerFields(bytes);
      const field = fields[m.field % Math.max(1, fields.length)];
      for (let i = 0; field && i < field.size && field.at + i < bytes.length; i++) bytes[field.at + i] = (m.value >>> (8 * i)) & 0xff;
      continue;
    }
    const at = offset(m.at, bytes.length);
    if (m.kind === 'byte') {
      if (at < bytes.length) bytes[at] = m.value;
    } else if (m.kind === 'uint32') {
      for (let i = 0; i < 4 && at + i < bytes.length; i++) bytes[at + i] = (m.value >>> (8 * i)) & 0xff;
    } else if (m.kind === 'truncate') {
      bytes = bytes.slice(0, at);
    } else if (m.kind === 'insert') {
      bytes = Uint8Array.from([...bytes.subarray(0, at), ...m.bytes, ...bytes.subarray(at)]);
    } else if (m.kind === 'delete') {
      bytes = Uint8Array.from([...bytes.subarray(0, at), ...bytes.subarray(at + m.count)]);
    } else {
      const region = bytes.subarray(at, at + m.count);
      const repeated = Array.from({ length: m.times }, () => [...region]).flat();
      bytes = Uint8Array.from([...bytes.subarray(0, at), ...repeated, ...bytes.subarray(at)]);
    }
  }
  return bytes;
}

const uint16 = fc.oneof(fc.constantFrom(0, 1, 2, 0x7fff, 0x8000, 0xffff), fc.integer({ min: 0, max: 0xffff }));
/** A consistent header (the decoders' happy path), for the hostile fields to override. */
const validWav: fc.Arbitrary<WavFields> = fc
  .record({
    encoding: fc.constantFrom([1, 8], [1, 16], [1, 24], [1, 32], [3, 32], [3, 64], [6, 8], [7, 8]),
    channels: fc.integer({ min: 1, max: 8 }),
    sampleRate: fc.oneof(fc.constantFrom(8000, 16000, 22050, 44100, 48000), fc.integer({ min: 1000, max: 384000 })),
    data: fc.uint8Array({ minLength: 64, maxLength: 4096 }),
  })
  .map(({ encoding: [formatTag, bitsPerSample], ...rest }) => ({ ...rest, formatTag, bitsPerSample }));
/** One hostile value for one field; a case overrides up to three fields of a valid header. */
const hostileWavField: fc.Arbitrary<WavFields> = fc.oneof(
  fc.record({ formatTag: fc.oneof(fc.constantFrom(1, 3, 6, 7, 0x11, 0xfffe), uint16) }),
  fc.record({ channels: fc.oneof(fc.integer({ min: 0, max: 10 }), uint16) }),
  fc.record({ sampleRate: fc.oneof(fc.constantFrom(0, 1, 999, 1000, 384000, 384001, ...EDGE_UINT32), fc.nat()) }),
  fc.record({ blockAlign: fc.oneof(fc.integer({ min: 0, max: 64 }), uint16) }),
  fc.record({ bitsPerSample: fc.oneof(fc.constantFrom(0, 4, 8, 12, 16, 24, 32, 64), uint16) }),
  fc.record({ fmtExtra: fc.uint8Array({ maxLength: 24 }) }),
  fc.record({ fmtSize: fc.oneof(fc.integer({ min: 0, max: 48 }), fc.constantFrom(...EDGE_UINT32)) }),
  fc.record({ data: fc.uint8Array({ maxLength: 64 }) }),
  fc.record({ dataSize: fc.constantFrom(...EDGE_UINT32) }),
);
const wavFields = fc.tuple(validWav, fc.array(hostileWavField, { maxLength: 3 })).map(([valid, hostile]) => Object.assign({}, valid, ...hostile) as WavFields);

describe('decodeAudio fuzz', function () {
  this.timeout(Math.max(60_000, RUNS * 3 * 2_000));
  const isolated = new IsolatedAudio();
  let rssAtStart = 0;
  const outcomes = { decoded: 0, rejected400: 0, rejected413: 0 };

  before(async () => {
    await isolated.decode(SEEDS['pcm8-8k.wav']!, OPTIONS, CASE_TIMEOUT_MS); // start the worker
    rssAtStart = process.memoryUsage.rss();
  });
  after(async () => {
    await isolated.close();
    console.log(`      decodeAudio fuzz: ${JSON.stringify(outcomes)}`);
  });

  /** The contract of decodeAudio for any input, checked on one case. */
  async function expectContract(bytes: Uint8Array): Promise<void> {
    const result: IsolatedResult = await isolated.decode(bytes, OPTIONS, CASE_TIMEOUT_MS);
    expect(result.peakRssGrowth, 'memory growth during the case').to.be.below(CASE_MEMORY_BUDGET);
    expect(process.memoryUsage.rss() - rssAtStart, 'memory growth across the run').to.be.below(RUN_MEMORY_BUDGET);
    if (result.outcome.ok) {
      const { summary } = result.outcome;
      expect(summary.sampleRate).to.equal(16000);
      expect(summary.length).to.be.above(0);
      expect(summary.finite, 'all samples finite').to.equal(true);
      expect(summary.peak).to.be.at.most(2); // clamped input, plus the resampler's ringing
      outcomes.decoded++;
      return;
    }
    const { error } = result.outcome;
    expect(error, `${error.name}: ${error.message}`).to.be.instanceOf(AppError);
    expect([400, 413], error.message).to.include((error as AppError).status);
    expect(error.message).to.not.match(LIBRARY_MESSAGE);
    if ((error as AppError).status === 400) outcomes.rejected400++;
    else outcomes.rejected413++;
  }

  it('answers mutated WAV, MP3, FLAC and Ogg files with audio or a 400/413', async () => {
    // Ogg pages carry a CRC, so most mutations stop at its check; half the Ogg cases get their
    // CRCs made right again, as an attacker's would be, so the decoders behind it are fuzzed too.
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...Object.keys(SEEDS)), fc.array(mutation, { minLength: 1, maxLength: 6 }), fc.boolean(), (name, mutations, resign) => {
        const bytes = mutate(SEEDS[name]!, mutations);
        return expectContract(resign && name.endsWith('.ogg') ? resignOggPages(bytes) : bytes);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('answers mutated WebM, MP4/M4A and ADTS files with audio or a 400/413', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...Object.keys(RECORDER_SEEDS)), fc.array(mutation, { minLength: 1, maxLength: 6 }), (name, mutations) =>
        expectContract(mutate(RECORDER_SEEDS[name]!, mutations)),
      ),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('answers WAV files with random header fields with audio or a 400/413', async () => {
    await fc.assert(
      fc.asyncProperty(wavFields, (fields) => expectContract(wavBytes(fields))),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('answers hand-made FLAC of any rate, channel count and block size with audio or a 400/413', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.integer({ min: 1, max: 655350 }), fc.constantFrom(999, 1000, 384000, 384001)),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 16, max: 65535 }),
        fc.double({ min: 0.001, max: 3, noNaN: true }),
        (sampleRate, channels, blockSize, seconds) => expectContract(flacSilence({ sampleRate, channels, blockSize, seconds })),
      ),
      { numRuns: RUNS, seed: SEED },
    );
  });
});
