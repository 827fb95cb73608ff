/**
 * Bytes in any supported container → mono Float32 PCM at the rate a model wants. Pure and
 * synchronous-ish CPU work: callers run it inside a worker thread, never on the event loop.
 * Every decode runs under the budget of decode-budget.ts (a deadline, and audio in proportion
 * to the upload's size) and keeps at most maxSeconds of output (see pcm-collector.ts for the
 * memory bound).
 */
import { AppError, UndecodableAudioError } from '../errors.js';
import type { DecodeLimits } from './decode-budget.js';
import { decodeAdts } from './decode-adts.js';
import { decodeFlac } from './decode-flac.js';
import { decodeMp3 } from './decode-mp3.js';
import { decodeMp4 } from './decode-mp4.js';
import { decodeOggOpus, decodeOggVorbis } from './decode-ogg.js';
import { decodeWav } from './decode-wav.js';
import { decodeWebm } from './decode-webm.js';
import type { PcmAudio } from './pcm-audio.js';
import type { Pcm16Buffer } from './pcm16-buffer.js';
import { PcmCollector } from './pcm-collector.js';
import { AUDIO_FORMAT_NAMES, sniffAudioFormat, SUPPORTED_FORMATS_TEXT, type AudioFormat } from './sniff-format.js';

export interface DecodeAudioOptions extends DecodeLimits {
  /** The client's declared media type; only a hint (see sniffAudioFormat). */
  contentType?: string;
  /** Output rate, e.g. 16000 for Whisper; within MIN_SAMPLE_RATE … MAX_SAMPLE_RATE. */
  sampleRate: number;
}

const DECODERS: Readonly<Record<AudioFormat, (bytes: Uint8Array, collector: PcmCollector) => void | Promise<void>>> = {
  mp3: decodeMp3,
  wav: decodeWav,
  flac: decodeFlac,
  'ogg-opus': decodeOggOpus,
  'ogg-vorbis': decodeOggVorbis,
  webm: decodeWebm,
  mp4: decodeMp4,
  aac: decodeAdts,
};

/**
 * The cheap checks of decodeAudio (empty, unknown container), for callers that want to
 * reject such input before queueing the real decode.
 */
export function probeAudio(bytes: Uint8Array, contentType?: string): AudioFormat {
  if (bytes.length === 0) throw new UndecodableAudioError('the body is empty');
  const format = sniffAudioFormat(bytes, contentType?.toLowerCase());
  if (!format) throw new UndecodableAudioError(`unrecognised format; send ${SUPPORTED_FORMATS_TEXT}`);
  return format;
}

/**
 * Throws UndecodableAudioError (400) for anything it cannot or will not decode and
 * PayloadTooLargeError (413) past maxSeconds, the byte budget or the deadline. A RangeError
 * means the caller asked for an unsupported output rate.
 */
export async function decodeAudio(bytes: Uint8Array, options: DecodeAudioOptions): Promise<PcmAudio> {
  return (await runDecoder(bytes, options, false)).finish();
}

/**
 * decodeAudio's 16-bit form for long speech (pcm16-buffer.ts): the same checks and errors, the
 * audio held at 2 bytes a sample and never joined.
 */
export async function decodeAudio16(bytes: Uint8Array, options: DecodeAudioOptions): Promise<Pcm16Buffer> {
  return (await runDecoder(bytes, options, true)).finish16();
}

async function runDecoder(bytes: Uint8Array, options: DecodeAudioOptions, keep16: boolean): Promise<PcmCollector> {
  const format = probeAudio(bytes, options.contentType);
  const name = AUDIO_FORMAT_NAMES[format];
  const collector = new PcmCollector({ ...options, inputBytes: bytes.length, format: name, keep16 });
  try {
    await DECODERS[format](bytes, collector);
  } catch (error) {
    if (error instanceof AppError) throw error;
    // The WASM decoders and their parsers throw assorted errors (and RangeErrors when their
    // memory runs out) on malformed input. Their messages describe library internals, so the
    // client gets a plain one.
    throw new UndecodableAudioError(`the ${name} data is corrupt or uses features that are not supported`);
  }
  return collector;
}
