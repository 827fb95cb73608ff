import { FLACDecoder } from '@wasm-audio-decoders/flac';
import type { DecodeLimits, DecodedAudio } from './decoded-audio.js';
import { decodeStream } from './decode-stream.js';

/** Native FLAC (the "fLaC" stream) via libFLAC compiled to WASM. */
export function decodeFlac(bytes: Uint8Array, limits: DecodeLimits): Promise<DecodedAudio> {
  return decodeStream(new FLACDecoder(), bytes, limits, 'FLAC');
}
