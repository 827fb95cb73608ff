/**
 * G.711 (ITU-T): 8-bit µ-law and A-law codes → linear samples in [-1, 1). Read by WAV decoding
 * (format tags 6 and 7) and by realtime sessions whose audio is `audio/pcmu` / `audio/pcma`
 * (`g711_ulaw` / `g711_alaw` in the beta protocol): telephone audio at 8 kHz.
 */

/** µ-law → linear, as in the ITU reference (and Sun's g711.c), scaled from 16 bits. */
export const MULAW = Float32Array.from({ length: 256 }, (_, code) => {
  const u = ~code & 0xff;
  const magnitude = ((((u & 0x0f) << 3) + 0x84) << ((u & 0x70) >> 4)) - 0x84;
  return (u & 0x80 ? -magnitude : magnitude) / 32768;
});

/** A-law → linear (even bits inverted on the wire). */
export const ALAW = Float32Array.from({ length: 256 }, (_, code) => {
  const a = code ^ 0x55;
  const segment = (a & 0x70) >> 4;
  let magnitude = (a & 0x0f) << 4;
  magnitude = segment === 0 ? magnitude + 8 : (magnitude + 0x108) << (segment - 1);
  return (a & 0x80 ? magnitude : -magnitude) / 32768;
});

/** One sample per byte, through `table` (MULAW or ALAW). */
export function decodeG711(bytes: Uint8Array, table: Float32Array): Float32Array {
  const samples = new Float32Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) samples[i] = table[bytes[i]!]!;
  return samples;
}
