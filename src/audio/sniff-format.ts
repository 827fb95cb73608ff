/**
 * Identifies an audio container from its first bytes. Content types from clients are often
 * wrong (multipart uploads default to application/octet-stream), so bytes win; the content
 * type is only a hint for headerless MP3 and ADTS streams.
 */

export type AudioFormat = 'mp3' | 'wav' | 'flac' | 'ogg-opus' | 'ogg-vorbis' | 'webm' | 'mp4' | 'aac';

/** Names for messages. */
export const AUDIO_FORMAT_NAMES: Readonly<Record<AudioFormat, string>> = {
  mp3: 'MP3',
  wav: 'WAV',
  flac: 'FLAC',
  'ogg-opus': 'Ogg Opus',
  'ogg-vorbis': 'Ogg Vorbis',
  webm: 'WebM',
  mp4: 'MP4',
  aac: 'AAC (ADTS)',
};

export const AUDIO_FORMATS = Object.keys(AUDIO_FORMAT_NAMES) as AudioFormat[];

export const SUPPORTED_FORMATS_TEXT = 'MP3, WAV, FLAC, Ogg Opus, Ogg Vorbis, WebM (Opus, Vorbis or AAC), MP4/M4A (AAC or ALAC) or AAC (ADTS)';

export function sniffAudioFormat(bytes: Uint8Array, contentTypeHint = ''): AudioFormat | undefined {
  if (startsWith(bytes, 'RIFF') && startsWith(bytes, 'WAVE', 8)) return 'wav';
  if (startsWith(bytes, 'fLaC')) return 'flac';
  if (startsWith(bytes, 'OggS')) return oggCodec(bytes);
  // EBML's magic number: WebM and Matroska.
  if (bytes[0] === 0x1a && bytes[1] === 0x45 && bytes[2] === 0xdf && bytes[3] === 0xa3) return 'webm';
  // ISO base media (MP4, M4A, MOV, 3GP) start with a file type box.
  if (startsWith(bytes, 'ftyp', 4)) return 'mp4';
  // ADTS may follow an ID3 tag, like MP3.
  if (isAdtsSync(bytes, skipId3(bytes))) return 'aac';
  if (startsWith(bytes, 'ID3') || isMpegFrameSync(bytes, 0)) return 'mp3';
  // A raw MP3 stream may start mid-frame (e.g. cut from a stream); trust a declared MPEG type.
  if (/^audio\/(mpeg|mp3|mpeg3|x-mpeg)$/.test(contentTypeHint)) return 'mp3';
  if (/^audio\/(aac|aacp|x-aac)$/.test(contentTypeHint)) return 'aac';
  return undefined;
}

/** The first Ogg page carries the codec's identification header ("OpusHead", "\x01vorbis"). */
function oggCodec(bytes: Uint8Array): AudioFormat | undefined {
  const segments = bytes[26];
  if (segments === undefined) return undefined;
  const packetStart = 27 + segments;
  if (startsWith(bytes, 'OpusHead', packetStart)) return 'ogg-opus';
  if (bytes[packetStart] === 1 && startsWith(bytes, 'vorbis', packetStart + 1)) return 'ogg-vorbis';
  return undefined;
}

/** 12 sync bits and layer 00 (MPEG audio frames, whose layer is never 00, do not match). */
export function isAdtsSync(bytes: Uint8Array, offset: number): boolean {
  return bytes[offset] === 0xff && ((bytes[offset + 1] ?? 0) & 0xf6) === 0xf0;
}

/** Where the audio starts: after an ID3v2 tag when there is one (its size is a 28-bit syncsafe number). */
export function skipId3(bytes: Uint8Array): number {
  if (!(bytes[0] === 0x49 && bytes[1] === 0x44 && bytes[2] === 0x33) || bytes.length < 10) return 0;
  const size = ((bytes[6]! & 0x7f) << 21) | ((bytes[7]! & 0x7f) << 14) | ((bytes[8]! & 0x7f) << 7) | (bytes[9]! & 0x7f);
  return 10 + size + (bytes[5]! & 0x10 ? 10 : 0);
}

/** 11 set sync bits, a valid MPEG version, layer III/II/I and a non-reserved bitrate. */
function isMpegFrameSync(bytes: Uint8Array, offset: number): boolean {
  const b1 = bytes[offset];
  const b2 = bytes[offset + 1];
  const b3 = bytes[offset + 2];
  if (b1 === undefined || b2 === undefined || b3 === undefined) return false;
  const version = (b2 >> 3) & 0b11;
  const layer = (b2 >> 1) & 0b11;
  const bitrate = b3 >> 4;
  return b1 === 0xff && (b2 & 0xe0) === 0xe0 && version !== 0b01 && layer !== 0 && bitrate !== 0b1111;
}

function startsWith(bytes: Uint8Array, ascii: string, offset = 0): boolean {
  if (bytes.length < offset + ascii.length) return false;
  for (let i = 0; i < ascii.length; i++) {
    if (bytes[offset + i] !== ascii.charCodeAt(i)) return false;
  }
  return true;
}
