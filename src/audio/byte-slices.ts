/**
 * How compressed input is cut before each WASM decoder call. One call's output has to be bounded,
 * and compressed audio can expand enormously: a FLAC frame of silence is ~30 bytes for 65 535
 * samples × 8 channels (2 MB of Float32), and a little Ogg Vorbis silence decoded to hundreds of MB
 * in one call (docs/benchmarks.md, "Audio codecs"). Cutting at each sync pattern hands a decoder
 * about one frame (FLAC) per call, however much a frame expands; stretches with no sync pattern
 * (junk) go in one piece, which costs the parsers only a scan. Ogg goes one page (≤ 255 packets)
 * per call, cut at its real page boundaries (ogg-page-reader.ts).
 */

/** Fixed-size pieces, for formats whose expansion is small (MP3: ≤ ~100 samples per byte). */
export function* fixedSlices(bytes: Uint8Array, size: number): Generator<Uint8Array> {
  for (let offset = 0; offset < bytes.length; offset += size) yield bytes.subarray(offset, offset + size);
}

/** Pieces that each start at a position where `isSync` holds (the first may not). */
export function* slicesAtSync(bytes: Uint8Array, isSync: (bytes: Uint8Array, offset: number) => boolean): Generator<Uint8Array> {
  let start = 0;
  for (let offset = 1; offset < bytes.length; offset++) {
    if (isSync(bytes, offset)) {
      yield bytes.subarray(start, offset);
      start = offset;
    }
  }
  if (start < bytes.length) yield bytes.subarray(start);
}

/** "OggS", the capture pattern every Ogg page starts with. */
export function isOggPageStart(bytes: Uint8Array, offset: number): boolean {
  return bytes[offset] === 0x4f && bytes[offset + 1] === 0x67 && bytes[offset + 2] === 0x67 && bytes[offset + 3] === 0x53;
}

/** The 14-bit FLAC frame sync 0b11111111111110 followed by the reserved 0 bit (0xFFF8 / 0xFFF9). */
export function isFlacFrameStart(bytes: Uint8Array, offset: number): boolean {
  return bytes[offset] === 0xff && ((bytes[offset + 1] ?? 0) & 0xfe) === 0xf8;
}
