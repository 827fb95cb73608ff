/**
 * Cuts an Ogg stream (RFC 3533) into its pages, each checked against its CRC, for the Ogg
 * decoders (one page per decoder call: see byte-slices.ts for why calls are cut small). The
 * decoders' own parser is told not to check CRCs, so this is where a corrupt page is caught,
 * before its packets reach libopus or libvorbis; a flipped bit would otherwise decode as noise
 * or be skipped without a word.
 *
 * Pages are read one after another from the start, as they are written: header (27 bytes), a
 * lacing table of `segments` bytes, then a body of their sum. Anything else where a page should
 * start is corrupt, unless no page follows it. A page cut off by the end of the data ends the
 * stream (an upload or a recording stopped mid-write), as the other containers do; its CRC
 * cannot be checked, so its packets are not decoded.
 */
import { UndecodableAudioError } from '../errors.js';
import { isOggPageStart } from './byte-slices.js';
import { OGG_CRC_OFFSET, oggPageCrc } from './ogg-crc.js';

const HEADER_BYTES = 27;

export function* oggPagesChecked(bytes: Uint8Array, format: string): Generator<Uint8Array> {
  for (let at = 0; at < bytes.length; ) {
    if (!isOggPageStart(bytes, at)) {
      // Trailing bytes with no page after them (a tag some writers append, or the start of a
      // page cut off by the end) end the stream; bytes between pages are corrupt.
      if (!hasPageAfter(bytes, at)) return;
      throw new UndecodableAudioError(`the ${format} data is corrupt: no Ogg page starts at byte ${at}`);
    }
    if (at + HEADER_BYTES > bytes.length) return;
    const segments = bytes[at + 26]!;
    let end = at + HEADER_BYTES + segments;
    if (end > bytes.length) return;
    for (let i = 0; i < segments; i++) end += bytes[at + HEADER_BYTES + i]!;
    if (end > bytes.length) return;
    const page = bytes.subarray(at, end);
    const stored = (page[OGG_CRC_OFFSET]! | (page[OGG_CRC_OFFSET + 1]! << 8) | (page[OGG_CRC_OFFSET + 2]! << 16) | (page[OGG_CRC_OFFSET + 3]! << 24)) >>> 0;
    if (stored !== oggPageCrc(page)) {
      throw new UndecodableAudioError(`the ${format} data is corrupt: the Ogg page at byte ${at} fails its CRC check`);
    }
    yield page;
    at = end;
  }
}

function hasPageAfter(bytes: Uint8Array, at: number): boolean {
  for (let next = bytes.indexOf(0x4f, at + 1); next !== -1; next = bytes.indexOf(0x4f, next + 1)) {
    if (isOggPageStart(bytes, next)) return true;
  }
  return false;
}
