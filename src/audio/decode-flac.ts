import { FLACDecoder } from '@wasm-audio-decoders/flac';
import { UndecodableAudioError } from '../errors.js';
import { checkChannelCount, checkSampleRate } from './audio-bounds.js';
import { isFlacFrameStart, slicesAtSync } from './byte-slices.js';
import { decodeStream } from './decode-stream.js';
import type { PcmCollector } from './pcm-collector.js';

/** "fLaC", a 4-byte metadata block header, then the 34-byte STREAMINFO block. */
const STREAMINFO_END = 42;

/**
 * Native FLAC (the "fLaC" stream) via libFLAC compiled to WASM. The STREAMINFO header is
 * checked before decoding; each frame's own rate and channel count are checked as it decodes.
 */
export async function decodeFlac(bytes: Uint8Array, collector: PcmCollector): Promise<void> {
  checkStreamInfo(bytes);
  await decodeStream(new FLACDecoder(), slicesAtSync(bytes, isFlacFrameStart), collector);
}

/** STREAMINFO must be the first metadata block; it packs rate (20 bits), channels − 1 (3) and bits − 1 (5). */
function checkStreamInfo(bytes: Uint8Array): void {
  const blockType = (bytes[4] ?? 0xff) & 0x7f;
  const blockLength = ((bytes[5] ?? 0) << 16) | ((bytes[6] ?? 0) << 8) | (bytes[7] ?? 0);
  if (bytes.length < STREAMINFO_END || blockType !== 0 || blockLength < 34) {
    throw new UndecodableAudioError('the FLAC stream does not start with a complete STREAMINFO header');
  }
  const packed = bytes[20]!;
  checkSampleRate((bytes[18]! << 12) | (bytes[19]! << 4) | (packed >> 4), 'FLAC');
  checkChannelCount(((packed >> 1) & 0b111) + 1, 'FLAC');
  const bitsPerSample = (((packed & 1) << 4) | (bytes[21]! >> 4)) + 1;
  if (bitsPerSample < 4) throw new UndecodableAudioError(`unsupported FLAC sample size ${bitsPerSample} bits`);
}
