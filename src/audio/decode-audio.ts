/**
 * Bytes in any supported container → mono Float32 PCM at the rate a model wants. Pure and
 * synchronous-ish CPU work: callers run it inside a worker thread, never on the event loop.
 */
import { AppError, UndecodableAudioError } from '../errors.js';
import { decodeFlac } from './decode-flac.js';
import { decodeMp3 } from './decode-mp3.js';
import { decodeOggOpus, decodeOggVorbis } from './decode-ogg.js';
import { decodeWav } from './decode-wav.js';
import type { DecodeLimits, DecodedAudio } from './decoded-audio.js';
import { downmix } from './downmix.js';
import type { PcmAudio } from './pcm-audio.js';
import { resample } from './resample.js';
import { sniffAudioFormat, SUPPORTED_FORMATS_TEXT, type AudioFormat } from './sniff-format.js';

export interface DecodeAudioOptions extends DecodeLimits {
  /** The client's declared media type; only a hint (see sniffAudioFormat). */
  contentType?: string;
  /** Output rate, e.g. 16000 for Whisper. */
  sampleRate: number;
}

const DECODERS: Readonly<Record<AudioFormat, (bytes: Uint8Array, limits: DecodeLimits) => DecodedAudio | Promise<DecodedAudio>>> = {
  mp3: decodeMp3,
  wav: decodeWav,
  flac: decodeFlac,
  'ogg-opus': decodeOggOpus,
  'ogg-vorbis': decodeOggVorbis,
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

export async function decodeAudio(bytes: Uint8Array, options: DecodeAudioOptions): Promise<PcmAudio> {
  const format = probeAudio(bytes, options.contentType);
  let decoded: DecodedAudio;
  try {
    decoded = await DECODERS[format](bytes, options);
  } catch (error) {
    if (error instanceof AppError) throw error;
    // WASM decoders and header parsers throw assorted errors on malformed input; all are a 400.
    throw new UndecodableAudioError(`invalid ${format} data (${(error as Error).message})`);
  }
  const mono = downmix(decoded.channels);
  if (mono.length === 0) throw new UndecodableAudioError(`no ${format} audio found in the data`);
  return { samples: resample(mono, decoded.sampleRate, options.sampleRate), sampleRate: options.sampleRate };
}
