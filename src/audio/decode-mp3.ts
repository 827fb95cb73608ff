import { MPEGDecoder } from 'mpg123-decoder';
import { fixedSlices } from './byte-slices.js';
import { decodeStream } from './decode-stream.js';
import type { PcmCollector } from './pcm-collector.js';

/**
 * 64 kB: MPEG audio expands little (≤ 1152 samples × 2 channels per frame of ≥ ~50 bytes), so a
 * slice decodes to a few MB at most. mpg123 itself caps streams at 2 channels and 48 kHz.
 */
const SLICE_BYTES = 64 * 1024;

/**
 * MPEG audio (layer I/II/III) via mpg123 compiled to WASM. mpg123 skips junk silently (no
 * samples, no errors), so "nothing decoded" is the only reliable corruption signal.
 */
export function decodeMp3(bytes: Uint8Array, collector: PcmCollector): Promise<void> {
  return decodeStream(new MPEGDecoder(), fixedSlices(bytes, SLICE_BYTES), collector);
}
