/**
 * Hour-long uploads for tests, built in milliseconds instead of encoded: an MP3 of silence as one
 * LAME frame repeated (16 kHz mono MPEG-2 Layer III, 576 samples = 36 ms a frame, 144 bytes at
 * 32 kbit/s: an hour is 100,000 frames, 14.4 MB), and an 8-kHz 8-bit mono WAV (28.8 MB an hour).
 */
import { encodeMp3 } from '../../src/audio/encode-mp3.js';

const FRAME_BYTES = 144;
export const MP3_FRAME_SECONDS = 576 / 16_000;

/**
 * `seconds` (a multiple of 36 ms) of MP3 silence. LAME's frames of digital silence are identical
 * once past the first (its Info tag, dropped here so no frame count limits the decode), each
 * taking its main data from the bit reservoir the same way, so a run of one of them is a valid
 * stream. mpg123 cannot decode the very first (its reservoir is not there yet) and skips it.
 */
export async function mp3Silence(seconds: number): Promise<Buffer> {
  const encoded = await encodeMp3({ samples: new Float32Array(16_000 * 2), sampleRate: 16_000 }, 32);
  const frame = encoded.subarray(2 * FRAME_BYTES, 3 * FRAME_BYTES);
  if (frame[0] !== 0xff || frame.length !== FRAME_BYTES) throw new Error('unexpected LAME output: not 144-byte MPEG-2 frames');
  const count = Math.round(seconds / MP3_FRAME_SECONDS);
  const out = Buffer.allocUnsafe(count * FRAME_BYTES);
  for (let i = 0; i < count; i++) out.set(frame, i * FRAME_BYTES);
  return out;
}

/** `seconds` of 8-kHz unsigned 8-bit mono WAV: silence (128), or a quiet square wave when `tone`. */
export function wav8kSilence(seconds: number, tone = false): Buffer {
  const frames = seconds * 8000;
  const out = Buffer.alloc(44 + frames, 128);
  out.write('RIFF', 0, 'ascii');
  out.writeUInt32LE(36 + frames, 4);
  out.write('WAVEfmt ', 8, 'ascii');
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(1, 20); // PCM
  out.writeUInt16LE(1, 22); // mono
  out.writeUInt32LE(8000, 24);
  out.writeUInt32LE(8000, 28);
  out.writeUInt16LE(1, 32);
  out.writeUInt16LE(8, 34);
  out.write('data', 36, 'ascii');
  out.writeUInt32LE(frames, 40);
  if (tone) for (let i = 0; i < frames; i++) out[44 + i] = (i >> 4) & 1 ? 132 : 124;
  return out;
}
