/** Shared helpers for codec tests: where the real clips live, simple signal measurements, and builders of WAV and FLAC bytes with any header values. */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OGG_CRC_OFFSET, oggPageCrc } from '../../src/audio/ogg-crc.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** The real speech clips the tests use, with their sources and licences (SOURCES.md there). */
export const SPEECH_DIR = resolve(REPO_ROOT, 'test/fixtures/speech');
export const AUDIO_FIXTURES = resolve(REPO_ROOT, 'test/fixtures/audio');

/** Frequency estimated from rising zero crossings (good enough for a pure tone). */
export function dominantFrequency(samples: Float32Array, sampleRate: number): number {
  let crossings = 0;
  for (let i = 1; i < samples.length; i++) if (samples[i - 1]! < 0 && samples[i]! >= 0) crossings++;
  return (crossings * sampleRate) / samples.length;
}

export function rms(samples: Float32Array, from = 0, to = samples.length): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += samples[i]! ** 2;
  return Math.sqrt(sum / Math.max(1, to - from));
}

export function sine(frequency: number, sampleRate: number, seconds: number, amplitude = 0.5): Float32Array {
  const out = new Float32Array(Math.round(sampleRate * seconds));
  for (let i = 0; i < out.length; i++) out[i] = amplitude * Math.sin((2 * Math.PI * frequency * i) / sampleRate);
  return out;
}

export interface WavFields {
  formatTag?: number;
  channels?: number;
  sampleRate?: number;
  blockAlign?: number;
  bitsPerSample?: number;
  /** Bytes after the 16 standard fmt bytes (cbSize and the extensible fields). */
  fmtExtra?: Uint8Array;
  /** The fmt chunk's declared size; defaults to its real size. */
  fmtSize?: number;
  data?: Uint8Array;
  /** The data chunk's declared size; defaults to its real size. */
  dataSize?: number;
}

/**
 * A RIFF/WAVE file with any header fields, including invalid ones. Defaults: 16-bit PCM mono
 * at 16 kHz, block alignment derived from channels and bits, 0.1 s of silence.
 */
export function wavBytes(fields: WavFields = {}): Uint8Array {
  const { formatTag = 1, channels = 1, sampleRate = 16000, bitsPerSample = 16, fmtExtra = new Uint8Array(0) } = fields;
  const blockAlign = fields.blockAlign ?? (channels * bitsPerSample) / 8;
  const data = fields.data ?? new Uint8Array(3200);
  const fmtBytes = 16 + fmtExtra.length;
  const out = new Uint8Array(12 + 8 + fmtBytes + 8 + data.length);
  const view = new DataView(out.buffer);
  const ascii = (offset: number, text: string) => [...text].forEach((c, i) => (out[offset + i] = c.charCodeAt(0)));
  ascii(0, 'RIFF');
  view.setUint32(4, out.length - 8, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, fields.fmtSize ?? fmtBytes, true);
  view.setUint16(20, formatTag, true);
  view.setUint16(22, channels, true);
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, (sampleRate * blockAlign) >>> 0, true);
  view.setUint16(32, blockAlign, true);
  view.setUint16(34, bitsPerSample, true);
  out.set(fmtExtra, 36);
  const dataHeader = 36 + fmtExtra.length;
  ascii(dataHeader, 'data');
  view.setUint32(dataHeader + 4, fields.dataSize ?? data.length, true);
  out.set(data, dataHeader + 8);
  return out;
}

export interface FlacSilence {
  sampleRate: number;
  channels: number;
  seconds: number;
  /** Samples per frame, at most 65 535 (the format's maximum). */
  blockSize?: number;
}

/**
 * Native FLAC of digital silence written by hand: each frame is ~10 bytes of header plus a
 * 3-byte CONSTANT subframe per channel, however long its block. The densest expansion the
 * format allows (65 535 samples × 8 channels from ~40 bytes), hence the decoders' worst case.
 */
export function flacSilence({ sampleRate, channels, seconds, blockSize = 65535 }: FlacSilence): Uint8Array {
  const totalSamples = Math.round(sampleRate * seconds);
  const streamInfo = [
    ...uint(blockSize, 2),
    ...uint(blockSize, 2),
    ...uint(0, 3),
    ...uint(0, 3),
    (sampleRate >> 12) & 0xff,
    (sampleRate >> 4) & 0xff,
    ((sampleRate & 0xf) << 4) | ((channels - 1) << 1) | 0, // 16 bits − 1 = 15: high bit 0
    (15 << 4) | Math.floor(totalSamples / 2 ** 32),
    ...uint(totalSamples >>> 0, 4),
    ...new Array<number>(16).fill(0),
  ];
  const bytes: number[] = [...'fLaC'].map((c) => c.charCodeAt(0));
  bytes.push(0x80, ...uint(streamInfo.length, 3), ...streamInfo); // last metadata block, STREAMINFO
  for (let frame = 0, done = 0; done < totalSamples; frame++, done += blockSize) {
    const samples = Math.min(blockSize, totalSamples - done);
    // Sync + fixed block size; the block size and the rate (the decoder never sees STREAMINFO)
    // as fields after the frame number; independent channels, 16 bits.
    const [rateCode, rateField] = sampleRate % 10 === 0 && sampleRate / 10 < 0x10000 ? [0b1110, sampleRate / 10] : [0b1101, sampleRate];
    const frameHeader = [0xff, 0xf8, (0b0111 << 4) | rateCode, ((channels - 1) << 4) | (0b100 << 1), ...utf8Number(frame)];
    const header = [...frameHeader, ...uint(samples - 1, 2), ...uint(rateField, 2)];
    header.push(crc8(header));
    const body = [...header];
    for (let c = 0; c < channels; c++) body.push(0x00, 0x00, 0x00); // CONSTANT subframe, value 0
    bytes.push(...body, ...uint(crc16(body), 2));
  }
  return Uint8Array.from(bytes);
}

function uint(value: number, bytes: number): number[] {
  return Array.from({ length: bytes }, (_, i) => Math.floor(value / 256 ** (bytes - 1 - i)) & 0xff);
}

/** FLAC's frame numbers use UTF-8's variable-length coding. */
function utf8Number(n: number): number[] {
  if (n < 0x80) return [n];
  const out: number[] = [];
  let rest = n;
  while (rest >= 0x40 >> out.length) {
    out.unshift(0x80 | (rest & 0x3f));
    rest >>= 6;
  }
  return [((0xff00 >> (out.length + 1)) & 0xff) | rest, ...out];
}

function crc8(bytes: number[]): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff;
  }
  return crc;
}

function crc16(bytes: number[]): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x8005) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/**
 * A copy of an Ogg stream with every page's CRC made right again (after a test changed bytes
 * inside pages), as an attacker would: it walks the pages from the start and stops at the
 * first that is not one whole page.
 */
export function resignOggPages(bytes: Uint8Array): Uint8Array {
  const out = bytes.slice();
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  for (let at = 0; at + 27 <= out.length && String.fromCharCode(...out.subarray(at, at + 4)) === 'OggS'; ) {
    const segments = out[at + 26]!;
    let end = at + 27 + segments;
    for (let i = 0; i < segments && at + 27 + i < out.length; i++) end += out[at + 27 + i]!;
    if (end > out.length) break;
    view.setUint32(at + OGG_CRC_OFFSET, oggPageCrc(out.subarray(at, end)), true);
    at = end;
  }
  return out;
}
