import { MPEGDecoder } from 'mpg123-decoder';
import type { DecodeLimits, DecodedAudio } from './decoded-audio.js';
import { decodeStream } from './decode-stream.js';

/**
 * MPEG audio (layer I/II/III) via mpg123 compiled to WASM. mpg123 skips junk silently (no
 * samples, no errors), so "nothing decoded" is the only reliable corruption signal.
 */
export function decodeMp3(bytes: Uint8Array, limits: DecodeLimits): Promise<DecodedAudio> {
  return decodeStream(new MPEGDecoder(), bytes, limits, 'MP3');
}
