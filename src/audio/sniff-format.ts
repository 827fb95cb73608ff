/**
 * Identifies an audio container from its first bytes. Content types from clients are often
 * wrong (multipart uploads default to application/octet-stream), so bytes win; the content
 * type is only a hint for headerless MP3 streams.
 */

export type AudioFormat = 'mp3' | 'wav' | 'flac' | 'ogg-opus' | 'ogg-vorbis';

/** Names for messages. */
export const AUDIO_FORMAT_NAMES: Readonly<Record<AudioFormat, string>> = {
  mp3: 'MP3',
  wav: 'WAV',
  flac: 'FLAC',
  'ogg-opus': 'Ogg Opus',
  'ogg-vorbis': 'Ogg Vorbis',
};

export const SUPPORTED_FORMATS_TEXT = 'MP3, WAV, FLAC, Ogg Opus or Ogg Vorbis';

export function sniffAudioFormat(bytes: Uint8Array, contentTypeHint = ''): AudioFormat | undefined {
  if (startsWith(bytes, 'RIFF') && startsWith(bytes, 'WAVE', 8)) return 'wav';
  if (startsWith(bytes, 'fLaC')) return 'flac';
  if (startsWith(bytes, 'OggS')) return oggCodec(bytes);
  if (startsWith(bytes, 'ID3') || isMpegFrameSync(bytes, 0)) return 'mp3';
  // A raw MP3 stream may start mid-frame (e.g. cut from a stream); trust a declared MPEG type.
  if (/^audio\/(mpeg|mp3|mpeg3|x-mpeg)$/.test(contentTypeHint)) return 'mp3';
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
