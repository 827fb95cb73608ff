/**
 * Wraps codec packets in Ogg pages, so that a decoder that reads only Ogg (the Vorbis one)
 * can decode packets from another container (Vorbis in WebM). Pages carry no CRC (the
 * decoder is told not to check it) and no granule positions: nothing is trimmed or sought.
 */

const MAX_SEGMENTS = 255;

/** One page holding whole packets: each is cut into 255-byte lacing values, ending on a shorter one. */
export function oggPage(packets: readonly Uint8Array[], sequence: number, firstPage: boolean): Uint8Array {
  const lacing: number[] = [];
  for (const packet of packets) {
    for (let left = packet.length; ; left -= 255) {
      lacing.push(Math.min(left, 255));
      if (left < 255) break;
    }
  }
  if (lacing.length > MAX_SEGMENTS) throw new RangeError('too many packets for one Ogg page');
  const dataLength = packets.reduce((total, packet) => total + packet.length, 0);
  const page = new Uint8Array(27 + lacing.length + dataLength);
  const view = new DataView(page.buffer);
  page.set([0x4f, 0x67, 0x67, 0x53]); // "OggS"
  page[5] = firstPage ? 0x02 : 0x00; // beginning of stream
  view.setUint32(6, 0xffffffff, true); // granule position −1: no packet ends here for seeking
  view.setUint32(10, 0xffffffff, true);
  view.setUint32(14, 1, true); // serial number
  view.setUint32(18, sequence, true);
  page[26] = lacing.length;
  page.set(lacing, 27);
  let at = 27 + lacing.length;
  for (const packet of packets) {
    page.set(packet, at);
    at += packet.length;
  }
  return page;
}

/**
 * Groups packets into pages of whole packets, each within the 255 lacing values a page has and
 * at most `maxPackets` packets (a page is one decoder call: this bounds its output).
 */
export function* oggPages(packets: Iterable<Uint8Array>, firstSequence: number, maxPackets: number): Generator<Uint8Array> {
  let sequence = firstSequence;
  let batch: Uint8Array[] = [];
  let segments = 0;
  for (const packet of packets) {
    const needed = Math.floor(packet.length / 255) + 1;
    if (needed > MAX_SEGMENTS) throw new RangeError('an Ogg packet over 64 kB');
    if (segments + needed > MAX_SEGMENTS || batch.length === maxPackets) {
      yield oggPage(batch, sequence++, false);
      batch = [];
      segments = 0;
    }
    batch.push(packet);
    segments += needed;
  }
  if (batch.length > 0) yield oggPage(batch, sequence, false);
}
