/**
 * Raw AAC access units → the collector, through FAAD2 in WASM (@audio/decode-aac); ALAC
 * (Apple Lossless, iPhone Voice Memos' "lossless" setting) through the same package's port of
 * Apple's reference decoder. The containers (MP4, ADTS, Matroska) are demuxed by our own
 * parsers, which check every size against the bytes; the library gets only the codec
 * configuration and one batch of frames per call, so its own container parsers never see
 * untrusted input.
 */
import { decoder } from '@audio/decode-aac';
import { UndecodableAudioError } from '../errors.js';
import { checkChannelCount, checkSampleRate } from './audio-bounds.js';
import { AAC_SAMPLE_RATES } from './codec-sample-rates.js';
import type { PcmCollector } from './pcm-collector.js';

/**
 * Frames per decoder call. One AAC frame is 1024 samples (2048 with SBR) per channel, so a
 * call returns at most 16 × 2048 × 8 channels × 4 B = 1 MB, and the deadline is checked
 * between calls.
 */
const FRAMES_PER_CALL = 16;

interface AudioSpecificConfig {
  objectType: number;
  sampleRate: number;
  /** 0: a program config element in the stream says (the collector checks the decoded count). */
  channelConfig: number;
}

/** The first fields of an AudioSpecificConfig (enough to refuse unsupported streams before decoding). */
function parseAudioSpecificConfig(asc: Uint8Array, format: string): AudioSpecificConfig {
  if (asc.length < 2) throw new UndecodableAudioError(`the ${format} AAC configuration is missing or too short`);
  let bit = 0;
  const read = (bits: number): number => {
    let value = 0;
    for (let i = 0; i < bits; i++, bit++) {
      const byte = asc[bit >> 3];
      if (byte === undefined) throw new UndecodableAudioError(`the ${format} AAC configuration is truncated`);
      value = (value << 1) | ((byte >> (7 - (bit & 7))) & 1);
    }
    return value;
  };
  let objectType = read(5);
  if (objectType === 31) objectType = 32 + read(6);
  const rateIndex = read(4);
  const sampleRate = rateIndex === 15 ? read(24) : AAC_SAMPLE_RATES[rateIndex];
  const channelConfig = read(4);
  if (sampleRate === undefined) throw new UndecodableAudioError(`the ${format} AAC configuration has a reserved sample rate index ${rateIndex}`);
  checkSampleRate(sampleRate, format);
  // 7 is 7.1 (8 channels); 8–15 are reserved or larger layouts.
  if (channelConfig > 7) checkChannelCount(channelConfig, format);
  return { objectType, sampleRate, channelConfig };
}

/** A 2-byte AudioSpecificConfig for ADTS, whose headers carry the same three fields. */
export function audioSpecificConfig(objectType: number, rateIndex: number, channelConfig: number): Uint8Array {
  return Uint8Array.of((objectType << 3) | (rateIndex >> 1), ((rateIndex & 1) << 7) | (channelConfig << 3));
}

/** Decodes `frames` (raw access units of the stream `asc` describes) into `collector`. */
export async function decodeAacFrames(asc: Uint8Array, frames: Iterable<Uint8Array>, collector: PcmCollector, format: string): Promise<void> {
  parseAudioSpecificConfig(asc, format);
  await decodeInBatches(await decoder({ asc }), frames, FRAMES_PER_CALL, collector, format);
}

/**
 * ALAC frames declare their length in the magic cookie (Apple's encoder: 4096 samples). It is
 * checked, with the channels, bit depth and rate, before the decoder sizes its buffers by it;
 * a call then decodes at most 65 536 samples per channel.
 */
const MAX_ALAC_FRAME_LENGTH = 65_536;

/** Decodes ALAC frames; `cookie` ends with the 24-byte ALACSpecificConfig. */
export async function decodeAlacFrames(cookie: Uint8Array, frames: Iterable<Uint8Array>, collector: PcmCollector, format: string): Promise<void> {
  if (cookie.length < 24) throw new UndecodableAudioError(`the ${format} ALAC configuration is missing or too short`);
  const config = new DataView(cookie.buffer, cookie.byteOffset + cookie.length - 24, 24);
  const frameLength = config.getUint32(0);
  const bitDepth = config.getUint8(5);
  if (frameLength === 0 || frameLength > MAX_ALAC_FRAME_LENGTH) throw new UndecodableAudioError(`unsupported ${format} ALAC frame length ${frameLength}`);
  if (![16, 20, 24, 32].includes(bitDepth)) throw new UndecodableAudioError(`unsupported ${format} ALAC sample size ${bitDepth} bits`);
  checkChannelCount(config.getUint8(9), format);
  checkSampleRate(config.getUint32(20), format);
  await decodeInBatches(await decoder({ alac: cookie }), frames, Math.max(1, Math.floor(MAX_ALAC_FRAME_LENGTH / frameLength)), collector, format);
}

/**
 * Batches in a row that decode to nothing before the input is refused: a real stream yields
 * audio from its second frame on, while junk "frames" (hostile sample tables pointing at
 * single bytes) would otherwise each cost a decoder call until the deadline.
 */
const MAX_SILENT_BATCHES = 16;

async function decodeInBatches(
  codec: Awaited<ReturnType<typeof decoder>>,
  frames: Iterable<Uint8Array>,
  framesPerCall: number,
  collector: PcmCollector,
  format: string,
): Promise<void> {
  try {
    let batch: Uint8Array[] = [];
    let silentBatches = 0;
    const flush = () => {
      collector.checkDeadline();
      const { channelData, sampleRate } = codec.decode(batch);
      batch = [];
      const frames = channelData[0]?.length ?? 0;
      if (frames > 0) {
        silentBatches = 0;
        collector.add(channelData, frames, sampleRate);
      } else if (++silentBatches === MAX_SILENT_BATCHES) {
        throw new UndecodableAudioError(`the ${format} frames do not decode (${MAX_SILENT_BATCHES * framesPerCall} in a row gave no audio)`);
      }
    };
    for (const frame of frames) {
      if (frame.length === 0) continue;
      batch.push(frame);
      if (batch.length === framesPerCall) flush();
    }
    if (batch.length > 0) flush();
  } finally {
    codec.free();
  }
}
