/**
 * AAC in ADTS (.aac files, what many recorders and OpenAI's `aac` write): a 7-byte header
 * (9 with a CRC) before every frame, carrying the profile, rate index and channel layout.
 * Frames are cut here and handed on as raw access units (see decode-aac-frames.ts).
 */
import { UndecodableAudioError } from '../errors.js';
import { audioSpecificConfig, decodeAacFrames } from './decode-aac-frames.js';
import type { PcmCollector } from './pcm-collector.js';
import { isAdtsSync, skipId3 } from './sniff-format.js';

const FORMAT = 'AAC (ADTS)';

interface AdtsHeader {
  /** profile + 1: the MPEG-4 audio object type. */
  objectType: number;
  rateIndex: number;
  channelConfig: number;
  headerLength: number;
  frameLength: number;
}

function readHeader(bytes: Uint8Array, at: number): AdtsHeader {
  if (at + 7 > bytes.length || !isAdtsSync(bytes, at)) throw new UndecodableAudioError(`the ${FORMAT} stream loses frame sync at byte ${at}`);
  const protectionAbsent = bytes[at + 1]! & 1;
  const b2 = bytes[at + 2]!;
  const b3 = bytes[at + 3]!;
  const rawBlocks = bytes[at + 6]! & 0b11;
  if (rawBlocks !== 0) throw new UndecodableAudioError(`${FORMAT} frames with several raw data blocks are not supported`);
  return {
    objectType: (b2 >> 6) + 1,
    rateIndex: (b2 >> 2) & 0xf,
    channelConfig: ((b2 & 1) << 2) | (b3 >> 6),
    headerLength: protectionAbsent ? 7 : 9,
    frameLength: ((b3 & 0b11) << 11) | (bytes[at + 4]! << 3) | (bytes[at + 5]! >> 5),
  };
}

/** Raw access units, one per ADTS frame; the stream must keep the first frame's parameters. */
function* adtsFrames(bytes: Uint8Array, first: AdtsHeader, start: number): Generator<Uint8Array> {
  for (let at = start; at < bytes.length; ) {
    // A cut-off last frame (a recording stopped mid-write) ends the stream.
    if (at + 7 > bytes.length) return;
    const header = readHeader(bytes, at);
    if (header.objectType !== first.objectType || header.rateIndex !== first.rateIndex || header.channelConfig !== first.channelConfig) {
      throw new UndecodableAudioError(`the ${FORMAT} stream changes its profile, rate or channels at byte ${at}`);
    }
    if (header.frameLength < header.headerLength) throw new UndecodableAudioError(`the ${FORMAT} frame at byte ${at} is shorter than its header`);
    if (at + header.frameLength > bytes.length) return;
    yield bytes.subarray(at + header.headerLength, at + header.frameLength);
    at += header.frameLength;
  }
}

export async function decodeAdts(bytes: Uint8Array, collector: PcmCollector): Promise<void> {
  const start = skipId3(bytes);
  const first = readHeader(bytes, start);
  const asc = audioSpecificConfig(first.objectType, first.rateIndex, first.channelConfig);
  await decodeAacFrames(asc, adtsFrames(bytes, first, start), collector, FORMAT);
}
