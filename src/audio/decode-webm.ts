/**
 * WebM/Matroska audio (Chrome's and Firefox's MediaRecorder: Opus in WebM). A small EBML
 * reader of our own finds the first audio track and its blocks; Opus frames go to libopus
 * in WASM (opus-decoder, the raw-frame sibling of the Ogg Opus decoder), AAC frames to FAAD2
 * (decode-aac-frames.ts), Vorbis packets to the Ogg Vorbis decoder in Ogg pages made here.
 *
 * MediaRecorder writes the Segment and its Clusters with "unknown" sizes (it cannot seek back
 * to fill them in), so the reader does not rely on the sizes of the elements it descends
 * into: it reads the stream as a flat sequence of elements, entering the few containers it
 * needs and skipping everything else by its size. Blocks are read lazily, one at a time.
 */
import { OggVorbisDecoder } from '@wasm-audio-decoders/ogg-vorbis';
import { OpusDecoder } from 'opus-decoder';
import { UndecodableAudioError } from '../errors.js';
import { checkChannelCount, checkSampleRate } from './audio-bounds.js';
import { decodeAacFrames } from './decode-aac-frames.js';
import { decodeStream } from './decode-stream.js';
import { oggPage, oggPages } from './ogg-pages.js';
import type { PcmCollector } from './pcm-collector.js';

const FORMAT = 'WebM';

const ID = {
  Segment: 0x18538067,
  Tracks: 0x1654ae6b,
  TrackEntry: 0xae,
  TrackNumber: 0xd7,
  TrackType: 0x83,
  CodecID: 0x86,
  CodecPrivate: 0x63a2,
  Audio: 0xe1,
  Channels: 0x9f,
  Cluster: 0x1f43b675,
  BlockGroup: 0xa0,
  Block: 0xa1,
  SimpleBlock: 0xa3,
} as const;

/** Containers the reader enters (their children follow at once); all other elements are skipped whole. */
const ENTERED = new Set<number>([ID.Segment, ID.Tracks, ID.TrackEntry, ID.Audio, ID.Cluster, ID.BlockGroup]);
const AUDIO_TRACK = 2;
/** Recordings have one or two tracks; a file declaring thousands is an attack on memory. */
const MAX_TRACKS = 64;
const EMPTY = new Uint8Array(0);

/**
 * Opus frames per decoder call: a frame is at most 120 ms, so one call returns at most
 * 32 × 5760 samples × 8 channels × 4 B = 5.9 MB, and the deadline is checked between calls.
 */
const OPUS_FRAMES_PER_CALL = 32;

interface Track {
  number: number;
  type: number;
  codec: string;
  codecPrivate?: Uint8Array;
  channels: number;
}

interface Element {
  id: number;
  data: Uint8Array;
}

export async function decodeWebm(bytes: Uint8Array, collector: PcmCollector): Promise<void> {
  const reader = elements(bytes);
  const tracks: Track[] = [];
  // Tracks come before the first Cluster; stop reading them at the first block.
  let firstBlock: Element | undefined;
  // (Not for…of: breaking out of it would close the reader.)
  for (let next = reader.next(); !next.done; next = reader.next()) {
    if (next.value.id === ID.SimpleBlock || next.value.id === ID.Block) {
      firstBlock = next.value;
      break;
    }
    readTrackField(tracks, next.value);
  }
  const track = tracks.find((candidate) => candidate.type === AUDIO_TRACK);
  if (!track) throw new UndecodableAudioError(`the ${FORMAT} file has no audio track before its first block`);
  const frames = trackFrames(track.number, firstBlock, reader);
  if (track.codec === 'A_OPUS') return decodeOpusFrames(track, frames, collector);
  if (track.codec === 'A_VORBIS') return decodeVorbisPackets(track, frames, collector);
  if (track.codec.startsWith('A_AAC')) {
    if (!track.codecPrivate) throw new UndecodableAudioError(`the ${FORMAT} AAC track has no decoder configuration (CodecPrivate)`);
    return decodeAacFrames(track.codecPrivate, frames, collector, FORMAT);
  }
  throw new UndecodableAudioError(`the ${FORMAT} audio track uses the codec ${JSON.stringify(track.codec)}; Opus, Vorbis and AAC are supported`);
}

function readTrackField(tracks: Track[], { id, data }: Element): void {
  if (id === ID.TrackEntry) {
    if (tracks.length === MAX_TRACKS) throw corrupt(`more than ${MAX_TRACKS} tracks`);
    tracks.push({ number: 0, type: 0, codec: '', channels: 1 });
    return;
  }
  const track = tracks.at(-1);
  if (!track) return;
  if (id === ID.TrackNumber) track.number = readUint(data);
  else if (id === ID.TrackType) track.type = readUint(data);
  else if (id === ID.CodecID) track.codec = String.fromCharCode(...data.subarray(0, 64)).replace(/\0+$/, '');
  else if (id === ID.CodecPrivate) track.codecPrivate = data;
  else if (id === ID.Channels) track.channels = readUint(data);
}

/** The frames of one track's blocks, in file order (the first block was already read). */
function* trackFrames(trackNumber: number, first: Element | undefined, rest: Iterator<Element>): Generator<Uint8Array> {
  let element = first;
  while (element) {
    if (element.id === ID.SimpleBlock || element.id === ID.Block) yield* blockFrames(element.data, trackNumber);
    const next = rest.next();
    element = next.done ? undefined : next.value;
  }
}

/**
 * A block: track number (EBML varint), 16-bit timecode, flags, then one frame or, with
 * lacing, a count and the sizes of all but the last frame (Xiph, fixed or EBML lacing).
 */
function* blockFrames(block: Uint8Array, trackNumber: number): Generator<Uint8Array> {
  const track = readVint(block, 0, false);
  if (!track || track.value !== trackNumber) return;
  let at = track.length + 3;
  if (at > block.length) throw corrupt('a block is shorter than its header');
  const lacing = (block[at - 1]! >> 1) & 0b11;
  if (lacing === 0) {
    yield block.subarray(at);
    return;
  }
  const count = (block[at++] ?? 0) + 1;
  const sizes: number[] = [];
  if (lacing === 0b01) {
    at = readXiphSizes(block, at, count - 1, sizes);
  } else if (lacing === 0b11) {
    for (let i = 0; i < count - 1; i++) {
      const vint = readVint(block, at, false);
      if (!vint) throw corrupt('a laced block is truncated');
      at += vint.length;
      // After the first, sizes are signed differences from the previous one.
      const size = i === 0 ? vint.value : sizes[i - 1]! + vint.value - (2 ** (7 * vint.length - 1) - 1);
      if (size < 0) throw corrupt('a laced block has a negative frame size');
      sizes.push(size);
    }
  } else {
    const size = (block.length - at) / count;
    if (!Number.isInteger(size)) throw corrupt('a fixed-size laced block does not divide evenly');
    for (let i = 0; i < count - 1; i++) sizes.push(size);
  }
  for (const size of sizes) {
    if (at + size > block.length) throw corrupt('a laced block is truncated');
    yield block.subarray(at, at + size);
    at += size;
  }
  yield block.subarray(at);
}

async function decodeOpusFrames(track: Track, frames: Iterable<Uint8Array>, collector: PcmCollector): Promise<void> {
  const decoder = new OpusDecoder(opusOptions(track));
  await decoder.ready;
  try {
    let batch: Uint8Array[] = [];
    const flush = () => {
      collector.checkDeadline();
      const { channelData, samplesDecoded, sampleRate } = decoder.decodeFrames(batch);
      batch = [];
      collector.add(channelData, samplesDecoded, sampleRate);
    };
    for (const frame of frames) {
      if (frame.length === 0) continue;
      batch.push(frame);
      if (batch.length === OPUS_FRAMES_PER_CALL) flush();
    }
    if (batch.length > 0) flush();
  } finally {
    decoder.free();
  }
}

/**
 * Vorbis packets per decoder call: a packet is at most 8192 samples, so one call returns at
 * most 32 × 8192 × 8 channels × 4 B = 8 MB.
 */
const VORBIS_PACKETS_PER_CALL = 32;

/**
 * CodecPrivate holds the three Vorbis headers, Xiph-laced (a count, then the sizes of all but
 * the last). They become the first two Ogg pages (identification; comment and setup), as an
 * Ogg Vorbis file starts; the identification header's channels and rate are checked first.
 */
async function decodeVorbisPackets(track: Track, packets: Iterable<Uint8Array>, collector: PcmCollector): Promise<void> {
  const headers = track.codecPrivate && [...xiphLaced(track.codecPrivate)];
  const id = headers?.[0];
  if (headers?.length !== 3 || !id || id.length < 16 || id[0] !== 1 || String.fromCharCode(...id.subarray(1, 7)) !== 'vorbis') {
    throw corrupt('the Vorbis headers (CodecPrivate) are missing or malformed');
  }
  checkChannelCount(id[11]!, 'WebM Vorbis');
  checkSampleRate(new DataView(id.buffer, id.byteOffset + 12, 4).getUint32(0, true), 'WebM Vorbis');
  function* pages(): Generator<Uint8Array> {
    yield oggPage([headers![0]!], 0, true);
    yield oggPage([headers![1]!, headers![2]!], 1, false);
    yield* oggPages(packets, 2, VORBIS_PACKETS_PER_CALL);
  }
  await decodeStream(new OggVorbisDecoder(), pages(), collector);
}

/** Xiph-laced packets: a count − 1, the sizes of all but the last, the packets. */
function* xiphLaced(data: Uint8Array): Generator<Uint8Array> {
  const sizes: number[] = [];
  let at = readXiphSizes(data, 1, data[0] ?? 0, sizes);
  for (const size of sizes) {
    if (at + size > data.length) throw corrupt('the laced codec headers are truncated');
    yield data.subarray(at, at + size);
    at += size;
  }
  yield data.subarray(at);
}

/**
 * CodecPrivate is the OpusHead of Ogg Opus (RFC 7845 §5.1): channels at 9, pre-skip at 10,
 * mapping family at 18, then for families other than 0 the stream counts and channel map.
 */
function opusOptions(track: Track): ConstructorParameters<typeof OpusDecoder>[0] {
  const head = track.codecPrivate;
  if (!head || head.length < 19 || String.fromCharCode(...head.subarray(0, 8)) !== 'OpusHead') {
    checkChannelCount(track.channels, 'WebM Opus');
    if (track.channels > 2) throw corrupt('a multichannel Opus track has no OpusHead');
    return { channels: track.channels };
  }
  const channels = head[9]!;
  checkChannelCount(channels, 'WebM Opus');
  const preSkip = head[10]! | (head[11]! << 8);
  if (head[18] === 0) {
    if (channels > 2) throw corrupt('the OpusHead maps more than 2 channels without a channel map');
    return { channels, preSkip };
  }
  if (head.length < 21 + channels) throw corrupt('the OpusHead channel map is truncated');
  const streamCount = head[19]!;
  const coupledStreamCount = head[20]!;
  const channelMappingTable = [...head.subarray(21, 21 + channels)];
  if (
    streamCount === 0 ||
    coupledStreamCount > streamCount ||
    channelMappingTable.some((index) => index >= streamCount + coupledStreamCount && index !== 255)
  ) {
    throw corrupt('the OpusHead channel map is invalid');
  }
  return { channels, preSkip, streamCount, coupledStreamCount, channelMappingTable };
}

/**
 * Top-level reader: yields each element, with its data (none for the containers it enters). An element
 * running past the end (a recording cut off mid-write) ends the stream; unknown sizes are
 * accepted only for the containers it enters.
 */
function* elements(bytes: Uint8Array): Generator<Element> {
  let at = 0;
  const header = readElementHeader(bytes, at);
  if (header?.id !== 0x1a45dfa3 || header.size === undefined) throw corrupt('the EBML header is missing');
  at = header.dataStart + header.size;
  while (at < bytes.length) {
    const element = readElementHeader(bytes, at);
    if (!element) return;
    if (ENTERED.has(element.id)) {
      // Announced (a TrackEntry starts a track), then read through.
      yield { id: element.id, data: EMPTY };
      at = element.dataStart;
      continue;
    }
    if (element.size === undefined) throw corrupt(`element 0x${element.id.toString(16)} at byte ${at} has an unknown size`);
    const end = element.dataStart + element.size;
    if (end > bytes.length) return;
    yield { id: element.id, data: bytes.subarray(element.dataStart, end) };
    at = end;
  }
}

function readElementHeader(bytes: Uint8Array, at: number): { id: number; size: number | undefined; dataStart: number } | undefined {
  const id = readVint(bytes, at, true);
  if (!id || id.length > 4) return undefined;
  const size = readVint(bytes, at + id.length, false);
  if (!size) return undefined;
  return { id: id.value, size: size.unknown ? undefined : size.value, dataStart: at + id.length + size.length };
}

/**
 * An EBML variable-length integer: the count of leading zero bits of the first byte gives
 * its length (1–8 bytes). IDs keep their length marker; sizes drop it, and all ones means
 * "unknown".
 */
function readVint(bytes: Uint8Array, at: number, keepMarker: boolean): { value: number; length: number; unknown: boolean } | undefined {
  const first = bytes[at];
  if (first === undefined || first === 0) return undefined;
  const length = Math.clz32(first) - 23;
  if (at + length > bytes.length) return undefined;
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let i = 1; i < length; i++) {
    const byte = bytes[at + i]!;
    value = value * 256 + byte;
    allOnes &&= byte === 0xff;
  }
  return { value, length, unknown: !keepMarker && allOnes };
}

function readUint(data: Uint8Array): number {
  let value = 0;
  for (const byte of data.subarray(0, 6)) value = value * 256 + byte;
  return value;
}

/** `count` Xiph lacing sizes from `at` (each a run of 255s and a final byte) into `sizes`; returns where they end. */
function readXiphSizes(data: Uint8Array, at: number, count: number, sizes: number[]): number {
  for (let i = 0; i < count; i++) {
    let size = 0;
    let byte: number;
    do {
      byte = data[at++] ?? 0;
      size += byte;
      if (at > data.length) throw corrupt('laced sizes are truncated');
    } while (byte === 255);
    sizes.push(size);
  }
  return at;
}

function corrupt(detail: string): UndecodableAudioError {
  return new UndecodableAudioError(`the ${FORMAT} data is corrupt: ${detail}`);
}
