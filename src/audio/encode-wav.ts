/**
 * PcmAudio → 16-bit PCM mono WAV. The RIFF header carries the total length, so a whole file is
 * made at once; a stream whose length is not known yet starts with `wavStreamHeader`.
 */
import type { PcmAudio } from './pcm-audio.js';

const HEADER_BYTES = 44;

/** "Length unknown" in both RIFF size fields, as OpenAI's and ffmpeg's streamed WAV say it. */
const UNKNOWN_SIZE = 0xffffffff;

export function encodeWav(audio: PcmAudio): Uint8Array {
  const { samples, sampleRate } = audio;
  const dataBytes = samples.length * 2;
  const out = new Uint8Array(HEADER_BYTES + dataBytes);
  writeHeader(out, sampleRate, dataBytes);
  const view = new DataView(out.buffer);
  for (let i = 0; i < samples.length; i++) {
    view.setInt16(HEADER_BYTES + i * 2, toInt16(samples[i] as number), true);
  }
  return out;
}

/**
 * The 44-byte header of a 16-bit mono WAV whose 16-bit samples follow as they are made: its
 * sizes say "unknown" (0xFFFFFFFF), which browsers, ffmpeg, libsndfile and Python's `wave` read
 * to the end of the stream.
 */
export function wavStreamHeader(sampleRate: number): Uint8Array {
  const out = new Uint8Array(HEADER_BYTES);
  writeHeader(out, sampleRate, UNKNOWN_SIZE);
  return out;
}

/** Whether `bytes` begin with a wavStreamHeader (more samples follow), not a whole WAV's header. */
export function startsWavStream(bytes: Uint8Array): boolean {
  return bytes.length >= HEADER_BYTES && new DataView(bytes.buffer, bytes.byteOffset, HEADER_BYTES).getUint32(40, true) === UNKNOWN_SIZE;
}

function writeHeader(out: Uint8Array, sampleRate: number, dataBytes: number): void {
  const view = new DataView(out.buffer, out.byteOffset, HEADER_BYTES);
  writeAscii(out, 0, 'RIFF');
  view.setUint32(4, dataBytes === UNKNOWN_SIZE ? UNKNOWN_SIZE : 36 + dataBytes, true);
  writeAscii(out, 8, 'WAVE');
  writeAscii(out, 12, 'fmt ');
  view.setUint32(16, 16, true); // fmt chunk size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * 2, true); // byte rate
  view.setUint16(32, 2, true); // block align
  view.setUint16(34, 16, true); // bits per sample
  writeAscii(out, 36, 'data');
  view.setUint32(40, dataBytes, true);
}

/** Clips to [-1, 1]; NaN (a broken model output) becomes silence rather than noise. */
function toInt16(sample: number): number {
  if (Number.isNaN(sample)) return 0;
  const clipped = Math.max(-1, Math.min(1, sample));
  return clipped < 0 ? Math.round(clipped * 0x8000) : Math.round(clipped * 0x7fff);
}

function writeAscii(out: Uint8Array, offset: number, text: string): void {
  for (let i = 0; i < text.length; i++) out[offset + i] = text.charCodeAt(i);
}
