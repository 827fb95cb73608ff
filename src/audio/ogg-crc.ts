/**
 * Ogg's page checksum (RFC 3533 §6): CRC-32 with polynomial 0x04c11db7, not reflected, zero
 * initial value and no final XOR, computed over the whole page with its CRC field zeroed.
 * Table-driven, a byte per step, since every page of an upload goes through it.
 */

const TABLE = (() => {
  const table = new Uint32Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte << 24;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x80000000 ? (crc << 1) ^ 0x04c11db7 : crc << 1;
    table[byte] = crc >>> 0;
  }
  return table;
})();

/** Where a page header keeps its CRC (4 bytes, little-endian). */
export const OGG_CRC_OFFSET = 22;

/** The CRC of `page` as if its CRC field were zero (the field's own bytes are not read). */
export function oggPageCrc(page: Uint8Array): number {
  let crc = update(0, page, 0, Math.min(OGG_CRC_OFFSET, page.length));
  for (let i = 0; i < 4; i++) crc = (crc << 8) ^ TABLE[(crc >>> 24) & 0xff]!;
  return update(crc, page, OGG_CRC_OFFSET + 4, page.length) >>> 0;
}

function update(crc: number, bytes: Uint8Array, from: number, to: number): number {
  for (let i = from; i < to; i++) crc = (crc << 8) ^ TABLE[((crc >>> 24) ^ bytes[i]!) & 0xff]!;
  return crc;
}
