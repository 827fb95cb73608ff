/**
 * Reads and checks a RIFF/WAVE file's structure: where the samples are and how they are
 * encoded. Nothing in a WAV header is trusted: every field is checked against the supported
 * bounds before anything is sized from it, chunk sizes are clamped to the bytes present (a
 * truncated file reads what it has), and every read is bounds-checked, so malformed headers
 * answer a clear 400 instead of a DataView RangeError.
 */
import { UndecodableAudioError } from '../errors.js';
import { checkChannelCount, checkSampleRate } from './audio-bounds.js';

type WavEncoding = 'pcm' | 'float' | 'alaw' | 'mulaw' | 'ima-adpcm';

export interface WavLayout {
  encoding: WavEncoding;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  /** Bytes per frame; for IMA ADPCM, bytes per block. */
  blockAlign: number;
  /** Frames per block of blockAlign bytes: 1, or IMA ADPCM's samples per block. */
  framesPerBlock: number;
  dataStart: number;
  /** The data chunk's bytes that are present (its declared size is only an upper bound). */
  dataBytes: number;
  /** Whole frames present in the data chunk. */
  frames: number;
}

/** Format tags (and WAVE_FORMAT_EXTENSIBLE sub-format codes) we decode, with their sample sizes. */
const ENCODINGS: ReadonlyMap<number, { encoding: WavEncoding; bits: readonly number[] }> = new Map([
  [0x0001, { encoding: 'pcm', bits: [8, 16, 24, 32] }],
  [0x0003, { encoding: 'float', bits: [32, 64] }],
  [0x0006, { encoding: 'alaw', bits: [8] }],
  [0x0007, { encoding: 'mulaw', bits: [8] }],
  [0x0011, { encoding: 'ima-adpcm', bits: [4] }],
]);
const EXTENSIBLE = 0xfffe;
const FMT_BYTES = 16;
/** The extensible fmt body: 16 bytes, cbSize, valid bits, channel mask, then the sub-format GUID. */
const EXTENSIBLE_FMT_BYTES = 40;

export function readWavLayout(bytes: Uint8Array): WavLayout {
  let fmt: Uint8Array | undefined;
  let offset = 12; // after "RIFF", the RIFF size (ignored) and "WAVE"
  while (offset + 8 <= bytes.length) {
    const id = String.fromCharCode(...bytes.subarray(offset, offset + 4));
    const size = uint32(bytes, offset + 4);
    const body = offset + 8;
    const present = bytes.subarray(body, Math.min(body + size, bytes.length));
    if (id === 'fmt ') {
      fmt = present;
    } else if (id === 'data') {
      if (!fmt) throw new UndecodableAudioError('the WAV data chunk comes before its format chunk');
      return layoutOf(fmt, body, present.length);
    }
    offset = body + size + (size % 2); // chunks are padded to even sizes
  }
  if (fmt && fmt.length < FMT_BYTES) throw new UndecodableAudioError('the WAV format chunk is truncated');
  throw new UndecodableAudioError(fmt ? 'the WAV file has no data chunk' : 'the WAV file has no format chunk');
}

function layoutOf(fmt: Uint8Array, dataStart: number, dataBytes: number): WavLayout {
  if (fmt.length < FMT_BYTES) throw new UndecodableAudioError('the WAV format chunk is truncated');
  const formatTag = uint16(fmt, 0);
  const channels = uint16(fmt, 2);
  const sampleRate = uint32(fmt, 4);
  const blockAlign = uint16(fmt, 12);
  const bitsPerSample = uint16(fmt, 14);
  let code = formatTag;
  if (formatTag === EXTENSIBLE) {
    if (fmt.length < EXTENSIBLE_FMT_BYTES) throw new UndecodableAudioError('the WAV extensible format chunk is truncated');
    code = uint16(fmt, 24); // the sub-format GUID starts with the plain format tag
  }
  const known = ENCODINGS.get(code);
  if (!known) throw new UndecodableAudioError(`unsupported WAV encoding (format tag ${code})`);
  checkChannelCount(channels, 'WAV');
  checkSampleRate(sampleRate, 'WAV');
  if (!known.bits.includes(bitsPerSample)) {
    throw new UndecodableAudioError(`unsupported WAV sample size: ${bitsPerSample}-bit ${known.encoding}`);
  }
  const framesPerBlock = known.encoding === 'ima-adpcm' ? adpcmFramesPerBlock(blockAlign, channels) : 1;
  if (known.encoding !== 'ima-adpcm' && blockAlign !== (channels * bitsPerSample) / 8) {
    throw new UndecodableAudioError(`the WAV block alignment ${blockAlign} does not match ${channels} channels of ${bitsPerSample} bits`);
  }
  const frames = known.encoding === 'ima-adpcm' ? adpcmFrames(dataBytes, blockAlign, channels, framesPerBlock) : Math.floor(dataBytes / blockAlign);
  if (frames === 0) throw new UndecodableAudioError('the WAV file contains no samples');
  return { encoding: known.encoding, channels, sampleRate, bitsPerSample, blockAlign, framesPerBlock, dataStart, dataBytes, frames };
}

/**
 * An IMA ADPCM block holds a 4-byte header per channel (the first sample, step index), then
 * 4-byte words of 8 samples per channel in turn; samplesPerBlock in the header is derivable
 * and therefore not trusted.
 */
function adpcmFramesPerBlock(blockAlign: number, channels: number): number {
  const wordBytes = 4 * channels;
  if (blockAlign <= wordBytes || (blockAlign - wordBytes) % wordBytes !== 0) {
    throw new UndecodableAudioError(`the WAV block alignment ${blockAlign} is not a valid IMA ADPCM block for ${channels} channels`);
  }
  return 1 + ((blockAlign - wordBytes) / wordBytes) * 8;
}

/** Frames in the whole blocks present, plus the whole words of a truncated last block. */
function adpcmFrames(dataBytes: number, blockAlign: number, channels: number, framesPerBlock: number): number {
  const wordBytes = 4 * channels;
  const rest = dataBytes % blockAlign;
  const partial = rest < wordBytes ? 0 : 1 + Math.floor((rest - wordBytes) / wordBytes) * 8;
  return Math.floor(dataBytes / blockAlign) * framesPerBlock + partial;
}

function uint16(bytes: Uint8Array, offset: number): number {
  return bytes[offset]! | (bytes[offset + 1]! << 8);
}

function uint32(bytes: Uint8Array, offset: number): number {
  return (bytes[offset]! | (bytes[offset + 1]! << 8) | (bytes[offset + 2]! << 16) | (bytes[offset + 3]! << 24)) >>> 0;
}
