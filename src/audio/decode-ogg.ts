import { OggVorbisDecoder } from '@wasm-audio-decoders/ogg-vorbis';
import { OggOpusDecoder } from 'ogg-opus-decoder';
import { checkChannelCount, checkSampleRate } from './audio-bounds.js';
import { decodeStream } from './decode-stream.js';
import { oggPagesChecked } from './ogg-page-reader.js';
import type { PcmCollector } from './pcm-collector.js';

/** Ogg Opus (always decoded at 48 kHz, Opus's internal rate) via libopus in WASM. */
export async function decodeOggOpus(bytes: Uint8Array, collector: PcmCollector): Promise<void> {
  checkIdentificationHeaders(bytes, OPUS_HEAD, (at) => checkChannelCount(bytes[at + 9]!, 'Ogg Opus'));
  await decodeStream(new OggOpusDecoder(), oggPagesChecked(bytes, 'Ogg Opus'), collector);
}

/** Ogg Vorbis via libvorbis in WASM. */
export async function decodeOggVorbis(bytes: Uint8Array, collector: PcmCollector): Promise<void> {
  checkIdentificationHeaders(bytes, VORBIS_ID, (at) => {
    checkChannelCount(bytes[at + 11]!, 'Ogg Vorbis');
    checkSampleRate(new DataView(bytes.buffer, bytes.byteOffset + at + 12, 4).getUint32(0, true), 'Ogg Vorbis');
  });
  await decodeStream(new OggVorbisDecoder(), oggPagesChecked(bytes, 'Ogg Vorbis'), collector);
}

/** "OpusHead": version (1 byte), then the channel count. */
const OPUS_HEAD = { signature: [...'OpusHead'].map((c) => c.charCodeAt(0)), length: 19 };
/** "\x01vorbis": version (4 bytes), channels (1), sample rate (4, little-endian). */
const VORBIS_ID = { signature: [1, ...[...'vorbis'].map((c) => c.charCodeAt(0))], length: 16 };

/**
 * Checks every identification header in the bytes, not only the first page's: a chained Ogg
 * file starts a new stream (with new channels and rate) wherever a header appears, and the
 * decoders follow it. Searching the raw bytes finds each header however the pages around it
 * are framed; a false match inside audio data needs 8 (Opus) or 7 (Vorbis) exact bytes.
 */
function checkIdentificationHeaders(bytes: Uint8Array, header: { signature: number[]; length: number }, check: (at: number) => void): void {
  const [first, ...rest] = header.signature;
  for (let at = bytes.indexOf(first!); at !== -1 && at + header.length <= bytes.length; at = bytes.indexOf(first!, at + 1)) {
    if (rest.every((byte, i) => bytes[at + 1 + i] === byte)) check(at);
  }
}
