import type { PcmCollector } from './pcm-collector.js';

interface DecodedChunk {
  channelData: Float32Array[];
  samplesDecoded: number;
  sampleRate: number;
}

/** The shape shared by the @wasm-audio-decoders family (FLAC, Ogg Opus, Ogg Vorbis) and mpg123 (no flush). */
interface StreamingDecoder {
  ready: Promise<void>;
  decode(data: Uint8Array): DecodedChunk | Promise<DecodedChunk>;
  flush?(): Promise<DecodedChunk>;
  free(): void;
}

/**
 * Feeds a WASM streaming decoder one slice at a time (see byte-slices.ts for how slices bound
 * each call's output) and hands every chunk to the collector, which checks the rate, channel
 * count, duration and deadline as audio arrives; always frees the decoder.
 */
export async function decodeStream(decoder: StreamingDecoder, slices: Iterable<Uint8Array>, collector: PcmCollector): Promise<void> {
  await decoder.ready;
  try {
    for (const slice of slices) {
      collector.checkDeadline();
      const { channelData, samplesDecoded, sampleRate } = await decoder.decode(slice);
      collector.add(channelData, samplesDecoded, sampleRate);
    }
    if (decoder.flush) {
      const rest = await decoder.flush();
      collector.add(rest.channelData, rest.samplesDecoded, rest.sampleRate);
    }
  } finally {
    decoder.free();
  }
}
