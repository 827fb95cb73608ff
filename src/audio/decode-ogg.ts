import { OggVorbisDecoder } from '@wasm-audio-decoders/ogg-vorbis';
import { OggOpusDecoder } from 'ogg-opus-decoder';
import type { DecodeLimits, DecodedAudio } from './decoded-audio.js';
import { decodeStream } from './decode-stream.js';

/** Ogg Opus (always decoded at 48 kHz, Opus's internal rate) via libopus in WASM. */
export function decodeOggOpus(bytes: Uint8Array, limits: DecodeLimits): Promise<DecodedAudio> {
  return decodeStream(new OggOpusDecoder(), bytes, limits, 'Ogg Opus');
}

/** Ogg Vorbis via libvorbis in WASM. */
export function decodeOggVorbis(bytes: Uint8Array, limits: DecodeLimits): Promise<DecodedAudio> {
  return decodeStream(new OggVorbisDecoder(), bytes, limits, 'Ogg Vorbis');
}
