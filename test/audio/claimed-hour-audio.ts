/**
 * Small uploads that claim long audio, built byte by byte: each is valid enough for its decoder
 * to produce audio for the whole claimed duration, and every byte of it is container overhead
 * or a packet that carries no sound. What they cost is the decoder's time per second of audio,
 * multiplied by far more seconds than their size could honestly hold.
 */
import { oggPageCrc } from '../../src/audio/ogg-crc.js';

/** An EBML element with a minimal size field (1–8 bytes). */
function ebml(id: number[], ...body: Uint8Array[]): Buffer {
  const data = Buffer.concat(body);
  let length = 1;
  while (data.length >= 2 ** (7 * length) - 1) length++;
  const size = Buffer.alloc(length);
  let rest = data.length;
  for (let i = length - 1; i >= 0; i--, rest = Math.floor(rest / 256)) size[i] = rest & 0xff;
  size[0]! |= 0x80 >> (length - 1);
  return Buffer.concat([Buffer.from(id), size, data]);
}

function opusHead(channels = 1): Buffer {
  const head = Buffer.alloc(19);
  head.write('OpusHead');
  head[8] = 1;
  head[9] = channels;
  head.writeUInt16LE(312, 10);
  head.writeUInt32LE(48_000, 12);
  return head;
}

/**
 * An Opus packet of `frames` empty 20-ms CELT frames (RFC 6716 §3.2.5, code 3, constant size):
 * 2 bytes that libopus decodes as `frames` × 20 ms of concealment.
 */
export function opusConcealmentPacket(frames = 6, config = 31): Buffer {
  return Buffer.from([(config << 3) | 0b11, frames]);
}

/**
 * WebM whose blocks each hold 256 two-byte Opus packets of 120 ms, Xiph-laced (one size byte a
 * packet): about 25 bytes a second of audio, an hour in 92 kB.
 */
export function webmConcealment(seconds: number, packet = opusConcealmentPacket(), channels = 1): Buffer {
  const track = ebml(
    [0xae],
    ebml([0xd7], Buffer.of(1)),
    ebml([0x83], Buffer.of(2)),
    ebml([0x86], Buffer.from('A_OPUS')),
    ebml([0x63, 0xa2], opusHead(channels)),
    ebml([0xe1], ebml([0x9f], Buffer.of(channels))),
  );
  const blocks: Buffer[] = [];
  for (let packets = Math.ceil(seconds / 0.12); packets > 0; packets -= 256) {
    const count = Math.min(256, packets);
    const header = Buffer.from([0x81, 0x00, 0x00, count > 1 ? 0x82 : 0x80]);
    const lacing = count > 1 ? Buffer.from([count - 1, ...new Array<number>(count - 1).fill(packet.length)]) : Buffer.alloc(0);
    blocks.push(ebml([0xa3], header, lacing, ...new Array<Buffer>(count).fill(packet)));
  }
  const unknownSize = Buffer.from([0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
  return Buffer.concat([
    ebml([0x1a, 0x45, 0xdf, 0xa3], ebml([0x42, 0x82], Buffer.from('webm'))),
    Buffer.from([0x18, 0x53, 0x80, 0x67]),
    unknownSize,
    ebml([0x16, 0x54, 0xae, 0x6b], track),
    Buffer.from([0x1f, 0x43, 0xb6, 0x75]),
    unknownSize,
    ...blocks,
  ]);
}

/** One Ogg page (with its CRC) holding `packets`, each under 255 bytes. */
export function oggPage(packets: readonly Uint8Array[], sequence: number, flags = 0, granule = 0): Buffer {
  const lacing = packets.map((packet) => packet.length);
  if (lacing.length > 255 || lacing.some((length) => length >= 255)) throw new RangeError('one lacing value a packet, at most 255');
  const page = Buffer.concat([Buffer.alloc(27), Buffer.from(lacing), ...packets]);
  page.write('OggS');
  page[5] = flags;
  page.writeBigUInt64LE(BigInt(granule), 6);
  page.writeUInt32LE(1, 14);
  page.writeUInt32LE(sequence, 18);
  page[26] = lacing.length;
  page.writeUInt32LE(oggPageCrc(page), 22);
  return page;
}

/**
 * Ogg Opus whose pages each hold 255 packets of `packet` (by default a 1-byte TOC-only packet
 * with no frame data, which libopus decodes as 20 ms of concealment): about 100 bytes a second.
 */
export function oggOpusConcealment(seconds: number, packet: Uint8Array = Buffer.of(31 << 3), packetSeconds = 0.02): Buffer {
  const pages = [oggPage([opusHead()], 0, 0x02), oggPage([Buffer.from('OpusTags\0\0\0\0\0\0\0\0')], 1)];
  let granule = 0;
  for (let packets = Math.ceil(seconds / packetSeconds), sequence = 2; packets > 0; packets -= 255, sequence++) {
    const count = Math.min(255, packets);
    granule += Math.round(count * packetSeconds * 48_000);
    pages.push(oggPage(new Array<Uint8Array>(count).fill(packet), sequence, packets === count ? 0x04 : 0, granule));
  }
  return Buffer.concat(pages);
}

/**
 * An AAC-LC raw data block of silence for one channel: a single channel element with no
 * scale factor bands, then the end element (32 bits). FAAD2 decodes it to 1024 samples.
 */
export const SILENT_AAC_FRAME = Buffer.from([0x00, 0x00, 0x00, 0x07]);

function box(type: string, ...body: Uint8Array[]): Buffer {
  const data = Buffer.concat(body);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + data.length);
  header.write(type, 4, 'ascii');
  return Buffer.concat([header, data]);
}

function uint32s(...values: number[]): Buffer {
  const out = Buffer.alloc(4 * values.length);
  values.forEach((value, i) => out.writeUInt32BE(value, 4 * i));
  return out;
}

/**
 * MP4 (AAC-LC, mono, `sampleRate`) whose sample tables list `seconds` of audio but whose mdat
 * holds one chunk of `framesPerChunk` silent frames: every entry of the chunk offset table
 * points at that same chunk, so each 4 bytes of table replay it.
 */
export function mp4OverlappingChunks(seconds: number, sampleRate = 48_000, framesPerChunk = 64): Buffer {
  const rateIndex = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350].indexOf(sampleRate);
  if (rateIndex < 0) throw new RangeError(`no AAC rate index for ${sampleRate}`);
  const asc = Buffer.from([(2 << 3) | (rateIndex >> 1), ((rateIndex & 1) << 7) | (1 << 3)]);
  const esds = Buffer.concat([
    Buffer.alloc(4), // version, flags
    Buffer.from([0x03, 23 + asc.length, 0x00, 0x01, 0x00]), // ES_Descriptor: id 1, no flags
    Buffer.from([0x04, 15 + asc.length, 0x40, 0x15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), // DecoderConfig: AAC, audio stream
    Buffer.from([0x05, asc.length]),
    asc,
    Buffer.from([0x06, 0x01, 0x02]),
  ]);
  const mp4a = box(
    'mp4a',
    Buffer.alloc(6),
    Buffer.from([0, 1]),
    Buffer.alloc(8),
    Buffer.from([0, 1, 0, 16]),
    Buffer.alloc(4),
    uint32s(sampleRate * 65536),
    box('esds', esds),
  );
  const frames = Math.ceil((seconds * sampleRate) / 1024);
  const chunks = Math.ceil(frames / framesPerChunk);
  const ftyp = box('ftyp', Buffer.from('M4A '), uint32s(0), Buffer.from('isomM4A '));
  const tables = (chunkOffset: number) =>
    box(
      'stbl',
      box('stsd', uint32s(0, 1), mp4a),
      box('stts', uint32s(0, 1, frames, 1024)),
      box('stsc', uint32s(0, 1, 1, framesPerChunk, 1)),
      box('stsz', uint32s(0, SILENT_AAC_FRAME.length, frames)),
      box('stco', uint32s(0, chunks, ...new Array<number>(chunks).fill(chunkOffset))),
    );
  const moov = (chunkOffset: number) =>
    box(
      'moov',
      box(
        'trak',
        box('tkhd', uint32s(0, 0, 0, 1, 0, 0)),
        box('mdia', box('hdlr', uint32s(0, 0), Buffer.from('soun'), Buffer.alloc(13)), box('minf', tables(chunkOffset))),
      ),
    );
  const mdatAt = ftyp.length + moov(0).length;
  return Buffer.concat([ftyp, moov(mdatAt + 8), box('mdat', ...new Array<Buffer>(framesPerChunk).fill(SILENT_AAC_FRAME))]);
}

/** ADTS (AAC-LC mono at `sampleRate`) of silent frames: a 7-byte header and 4 bytes of data each. */
export function adtsSilence(seconds: number, sampleRate = 8000): Buffer {
  const rateIndex = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350].indexOf(sampleRate);
  const length = 7 + SILENT_AAC_FRAME.length;
  const header = Buffer.from([0xff, 0xf1, (1 << 6) | (rateIndex << 2), (1 << 6) | (length >> 11), (length >> 3) & 0xff, ((length & 7) << 5) | 0x1f, 0xfc]);
  const frame = Buffer.concat([header, SILENT_AAC_FRAME]);
  return Buffer.concat(new Array<Buffer>(Math.ceil((seconds * sampleRate) / 1024)).fill(frame));
}
