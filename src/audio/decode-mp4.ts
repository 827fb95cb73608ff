/**
 * AAC in MP4/M4A/MOV (phone voice memos, Safari's and Chrome's MediaRecorder). Our own box
 * parser finds the first sound track's AudioSpecificConfig and its samples, both from the
 * plain sample tables (moov/…/stbl) and from fragments (moof/traf/trun, what MediaRecorder
 * writes), and hands the frames to FAAD2 (decode-aac-frames.ts).
 *
 * Needs the whole file: the sample tables may come after the audio (moov at the end, the
 * default of many encoders), so the upload's size limit bounds it. Every count read from a
 * box is bounded by that box's length, every sample must lie inside the file and the samples
 * together must fit in it, so hostile tables cost at most a scan of the bytes. The encoder's
 * priming (~2112 samples, 44 ms at 48 kHz) is not trimmed: speech models do not need
 * sample-exact starts.
 */
import { UndecodableAudioError } from '../errors.js';
import { decodeAacFrames, decodeAlacFrames } from './decode-aac-frames.js';
import type { PcmCollector } from './pcm-collector.js';

const FORMAT = 'MP4';

interface Box {
  type: string;
  /** The body, after the size/type header. */
  body: Uint8Array;
  /** The box's offset in the file (fragments count data offsets from it). */
  start: number;
  /** It runs past the end of the bytes (and body is cut there). */
  truncated: boolean;
}

/** The boxes in bytes[from, to). A box running past the end is cut to it (an unfinished mdat). */
function* boxes(bytes: Uint8Array, from: number, to: number): Generator<Box> {
  for (let at = from; at + 8 <= to; ) {
    let size = readUint32(bytes, at);
    const type = String.fromCharCode(bytes[at + 4]!, bytes[at + 5]!, bytes[at + 6]!, bytes[at + 7]!);
    let header = 8;
    if (size === 1) {
      if (at + 16 > to) return;
      size = readUint32(bytes, at + 8) * 2 ** 32 + readUint32(bytes, at + 12);
      header = 16;
    } else if (size === 0) {
      size = to - at;
    }
    if (size < header) throw new UndecodableAudioError(`the ${FORMAT} box "${printable(type)}" at byte ${at} has an invalid size`);
    const end = Math.min(at + size, to);
    yield { type, body: bytes.subarray(at + header, end), start: at, truncated: at + size > to };
    at += size;
  }
}

function child(parent: Uint8Array, type: string, skip = 0): Uint8Array | undefined {
  return childBox(parent, type, skip)?.body;
}

function childBox(parent: Uint8Array, type: string, skip = 0): Box | undefined {
  for (const box of boxes(parent, skip, parent.length)) if (box.type === type) return box;
  return undefined;
}

function path(parent: Uint8Array | undefined, ...types: string[]): Uint8Array | undefined {
  let at = parent;
  for (const type of types) at = at && child(at, type);
  return at;
}

interface SoundTrack {
  id: number;
  codec: { aac: Uint8Array } | { alac: Uint8Array };
  /** Plain sample tables: sizes, chunk offsets, samples per chunk (stsc). */
  sizes: SampleSizes;
  chunkOffsets: Float64Array;
  /** stsc runs: the first chunk (from 1) of each run, and its samples per chunk. */
  samplesPerChunk: { firstChunk: Uint32Array; count: Uint32Array };
  /** Fragment defaults (mvex/trex). */
  defaultSize: number;
}

interface SampleSizes {
  count: number;
  /** Non-zero: every sample has this size. */
  constant: number;
  table: Uint8Array;
}

export async function decodeMp4(bytes: Uint8Array, collector: PcmCollector): Promise<void> {
  const moov = childBox(bytes, 'moov');
  if (!moov || moov.truncated) {
    throw new UndecodableAudioError(`the ${FORMAT} file has ${moov ? 'an incomplete' : 'no'} movie header (moov box); the upload may be truncated`);
  }
  const track = soundTrack(moov.body);
  const frames = samples(bytes, track);
  if ('aac' in track.codec) await decodeAacFrames(track.codec.aac, frames, collector, FORMAT);
  else await decodeAlacFrames(track.codec.alac, frames, collector, FORMAT);
}

function soundTrack(moov: Uint8Array): SoundTrack {
  let sawSound = false;
  for (const trak of boxes(moov, 0, moov.length)) {
    if (trak.type !== 'trak') continue;
    const hdlr = path(trak.body, 'mdia', 'hdlr');
    if (!hdlr || hdlr.length < 12 || ascii(hdlr, 8, 4) !== 'soun') continue;
    sawSound = true;
    const stbl = path(trak.body, 'mdia', 'minf', 'stbl');
    const stsd = stbl && child(stbl, 'stsd');
    // stsd: version/flags, entry count, then sample entries; the first one describes the samples.
    const entry = stsd && stsd.length >= 16 ? boxes(stsd, 8, stsd.length).next().value : undefined;
    if (!entry) continue;
    if (entry.type !== 'mp4a' && entry.type !== 'alac') {
      throw new UndecodableAudioError(`the ${FORMAT} sound track uses the "${printable(entry.type)}" codec; AAC and ALAC are supported`);
    }
    const tkhd = path(trak.body, 'tkhd');
    const defaultSize = trexDefaultSize(moov, tkhd);
    return {
      id: tkhd && tkhd.length >= 24 ? readUint32(tkhd, tkhd[0] === 1 ? 20 : 12) : 0,
      codec: entry.type === 'alac' ? { alac: alacCookieOf(entry.body) } : { aac: audioSpecificConfigOf(entry.body) },
      sizes: sampleSizes(stbl && child(stbl, 'stsz')),
      chunkOffsets: chunkOffsets(stbl),
      samplesPerChunk: sampleToChunk(stbl && child(stbl, 'stsc')),
      defaultSize,
    };
  }
  throw new UndecodableAudioError(sawSound ? `the ${FORMAT} sound track has no sample description` : `the ${FORMAT} file has no sound track`);
}

/**
 * The mp4a sample entry: 8 reserved/reference bytes, then the sound description (20 bytes in
 * version 0; QuickTime's versions 1 and 2 add 16 and 36), then child boxes with the esds.
 */
function audioSpecificConfigOf(mp4a: Uint8Array): Uint8Array {
  const version = mp4a.length >= 10 ? (mp4a[8]! << 8) | mp4a[9]! : 0;
  const skip = 28 + (version === 1 ? 16 : version === 2 ? 36 : 0);
  const esds = mp4a.length > skip ? child(mp4a, 'esds', skip) : undefined;
  const asc = esds && decoderSpecificInfo(esds);
  if (!asc) throw new UndecodableAudioError(`the ${FORMAT} AAC track has no decoder configuration (esds)`);
  return asc;
}

/** The alac sample entry: the sound description (28 bytes), then an "alac" box holding the magic cookie. */
function alacCookieOf(entry: Uint8Array): Uint8Array {
  const cookie = entry.length > 28 ? child(entry, 'alac', 28) : undefined;
  if (!cookie) throw new UndecodableAudioError(`the ${FORMAT} ALAC track has no decoder configuration`);
  return cookie;
}

/** The esds box (version/flags, then MPEG-4 descriptors): the DecoderSpecificInfo (tag 5) inside. */
function decoderSpecificInfo(esds: Uint8Array): Uint8Array | undefined {
  let at = 4;
  while (at < esds.length) {
    const tag = esds[at++]!;
    let length = 0;
    for (let i = 0; i < 4 && at < esds.length; i++) {
      const byte = esds[at++]!;
      length = (length << 7) | (byte & 0x7f);
      if (!(byte & 0x80)) break;
    }
    if (tag === 0x05) return at + length <= esds.length ? esds.subarray(at, at + length) : undefined;
    // ES_Descriptor (3) and DecoderConfigDescriptor (4) contain the one we want after fixed fields.
    if (tag === 0x03) {
      const flags = esds[at + 2] ?? 0;
      at += 3 + (flags & 0x80 ? 2 : 0) + (flags & 0x40 ? 1 + (esds[at + 3] ?? 0) : 0) + (flags & 0x20 ? 2 : 0);
    } else if (tag === 0x04) at += 13;
    else at += length;
  }
  return undefined;
}

function sampleSizes(stsz: Uint8Array | undefined): SampleSizes {
  if (!stsz || stsz.length < 12) return { count: 0, constant: 0, table: new Uint8Array(0) };
  const constant = readUint32(stsz, 4);
  const declared = readUint32(stsz, 8);
  const table = stsz.subarray(12);
  // A table cannot list more sizes than it has bytes for; a constant size needs no table.
  return { count: constant ? declared : Math.min(declared, table.length >> 2), constant, table };
}

/** Typed arrays: a hostile table of millions of entries costs 8 bytes an entry, not an object each. */
function chunkOffsets(stbl: Uint8Array | undefined): Float64Array {
  const stco = stbl && child(stbl, 'stco');
  const co64 = stbl && child(stbl, 'co64');
  const table = stco ?? co64;
  if (!table || table.length < 8) return new Float64Array(0);
  const width = stco ? 4 : 8;
  const count = Math.min(readUint32(table, 4), Math.floor((table.length - 8) / width));
  const offsets = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const at = 8 + i * width;
    offsets[i] = width === 4 ? readUint32(table, at) : readUint32(table, at) * 2 ** 32 + readUint32(table, at + 4);
  }
  return offsets;
}

function sampleToChunk(stsc: Uint8Array | undefined): SoundTrack['samplesPerChunk'] {
  const count = stsc && stsc.length >= 8 ? Math.min(readUint32(stsc, 4), Math.floor((stsc.length - 8) / 12)) : 0;
  const runs = { firstChunk: new Uint32Array(count), count: new Uint32Array(count) };
  for (let i = 0; i < count; i++) {
    runs.firstChunk[i] = readUint32(stsc!, 8 + i * 12);
    runs.count[i] = readUint32(stsc!, 12 + i * 12);
  }
  return runs;
}

function trexDefaultSize(moov: Uint8Array, tkhd: Uint8Array | undefined): number {
  const mvex = child(moov, 'mvex');
  if (!mvex || !tkhd) return 0;
  const id = readUint32(tkhd, tkhd[0] === 1 ? 20 : 12);
  for (const trex of boxes(mvex, 0, mvex.length)) {
    // trex: version/flags, track id, description index, default duration, default size, flags.
    if (trex.type === 'trex' && trex.body.length >= 24 && readUint32(trex.body, 4) === id) return readUint32(trex.body, 16);
  }
  return 0;
}

/**
 * The track's frames: first those of the sample tables, then those of each fragment in file
 * order. Samples never share bytes in a real file, so together they fit in it; tables that
 * point at the same bytes again (to state an hour of audio with a few kB of frames) are corrupt.
 */
function* samples(bytes: Uint8Array, track: SoundTrack): Generator<Uint8Array> {
  let total = 0;
  for (const sample of allSamples(bytes, track)) {
    total += sample.length;
    if (total > bytes.length) {
      throw new UndecodableAudioError(`the ${FORMAT} sample tables list more sample data than the file holds (samples overlap)`);
    }
    yield sample;
  }
}

function* allSamples(bytes: Uint8Array, track: SoundTrack): Generator<Uint8Array> {
  yield* tableSamples(bytes, track);
  for (const moof of boxes(bytes, 0, bytes.length)) if (moof.type === 'moof') yield* fragmentSamples(bytes, track, moof);
}

function* tableSamples(bytes: Uint8Array, track: SoundTrack): Generator<Uint8Array> {
  const { sizes, chunkOffsets: offsets, samplesPerChunk: runs } = track;
  let sample = 0;
  let run = 0;
  for (let chunk = 0; chunk < offsets.length && sample < sizes.count; chunk++) {
    // stsc numbers chunks from 1; each run lasts until the next run's first chunk.
    while (run + 1 < runs.count.length && runs.firstChunk[run + 1]! <= chunk + 1) run++;
    const perChunk = runs.count[run] ?? 0;
    let at = offsets[chunk]!;
    for (let i = 0; i < perChunk && sample < sizes.count; i++, sample++) {
      const size = sizes.constant || readUint32(sizes.table, sample * 4);
      yield inside(bytes, at, size);
      at += size;
    }
  }
}

function* fragmentSamples(bytes: Uint8Array, track: SoundTrack, moof: Box): Generator<Uint8Array> {
  for (const traf of boxes(moof.body, 0, moof.body.length)) {
    if (traf.type !== 'traf') continue;
    const tfhd = child(traf.body, 'tfhd');
    if (!tfhd || tfhd.length < 8 || readUint32(tfhd, 4) !== track.id) continue;
    const flags = readUint32(tfhd, 0) & 0xffffff;
    let at = 8;
    let base = moof.start;
    if (flags & 0x01) {
      base = readUint32(tfhd, at) * 2 ** 32 + readUint32(tfhd, at + 4);
      at += 8;
    }
    if (flags & 0x02) at += 4;
    if (flags & 0x08) at += 4;
    const defaultSize = flags & 0x10 && at + 4 <= tfhd.length ? readUint32(tfhd, at) : track.defaultSize;
    for (const trun of boxes(traf.body, 0, traf.body.length)) {
      if (trun.type === 'trun') yield* runSamples(bytes, trun.body, base, defaultSize);
    }
  }
}

/** trun: flags say which of data offset, first-sample flags and per-sample duration/size/flags/offset are present. */
function* runSamples(bytes: Uint8Array, trun: Uint8Array, base: number, defaultSize: number): Generator<Uint8Array> {
  if (trun.length < 8) return;
  const flags = readUint32(trun, 0) & 0xffffff;
  const count = readUint32(trun, 4);
  let at = 8;
  let offset = base;
  if (flags & 0x001) {
    offset += readUint32(trun, at) | 0;
    at += 4;
  }
  if (flags & 0x004) at += 4;
  const fieldBytes = 4 * [0x100, 0x200, 0x400, 0x800].filter((flag) => flags & flag).length;
  const sizeAt = flags & 0x100 ? 4 : 0;
  for (let i = 0; i < count; i++) {
    let size = defaultSize;
    if (flags & 0x200) {
      if (at + fieldBytes > trun.length) return;
      size = readUint32(trun, at + sizeAt);
    }
    if (size === 0) throw new UndecodableAudioError(`the ${FORMAT} fragment has no sample sizes`);
    yield inside(bytes, offset, size);
    offset += size;
    at += fieldBytes;
  }
}

/** A sample's bytes; a sample outside the file is corrupt (and ends a scan of hostile tables). */
function inside(bytes: Uint8Array, at: number, size: number): Uint8Array {
  if (at < 0 || at + size > bytes.length) {
    throw new UndecodableAudioError(`the ${FORMAT} sample tables point past the end of the file (truncated upload?)`);
  }
  return bytes.subarray(at, at + size);
}

function readUint32(bytes: Uint8Array, at: number): number {
  if (at + 4 > bytes.length) return 0;
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
}

function ascii(bytes: Uint8Array, at: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(at, at + length));
}

function printable(type: string): string {
  return type.replace(/[^\x20-\x7e]/g, '?');
}
