import { DecodedAudioCollector, slices, type DecodeLimits, type DecodedAudio } from './decoded-audio.js';

interface DecodedChunk {
  channelData: Float32Array[];
  samplesDecoded: number;
  sampleRate: number;
}

/** The shape shared by the @wasm-audio-decoders family (FLAC, Ogg Opus, Ogg Vorbis) and mpg123 (no flush). */
export interface StreamingDecoder {
  ready: Promise<void>;
  decode(data: Uint8Array): DecodedChunk | Promise<DecodedChunk>;
  flush?(): Promise<DecodedChunk>;
  free(): void;
}

/**
 * Feeds the bytes to a WASM streaming decoder slice by slice, so the duration limit is enforced
 * while decoding rather than after a whole long file is in memory; always frees the decoder.
 */
export async function decodeStream(
  decoder: StreamingDecoder,
  bytes: Uint8Array,
  limits: DecodeLimits,
  format: string,
): Promise<DecodedAudio> {
  await decoder.ready;
  try {
    const collected = new DecodedAudioCollector(limits);
    for (const slice of slices(bytes)) {
      const { channelData, samplesDecoded, sampleRate } = await decoder.decode(slice);
      collected.add(channelData, samplesDecoded, sampleRate);
    }
    if (decoder.flush) {
      const rest = await decoder.flush();
      collected.add(rest.channelData, rest.samplesDecoded, rest.sampleRate);
    }
    return collected.finish(format);
  } finally {
    decoder.free();
  }
}
