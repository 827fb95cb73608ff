import { OggVorbisDecoder } from '@wasm-audio-decoders/ogg-vorbis';
import { OggOpusDecoder } from 'ogg-opus-decoder';
import { DecodedAudioCollector, slices, type DecodeLimits, type DecodedAudio } from './decoded-audio.js';

interface StreamingDecoder {
  ready: Promise<void>;
  decode(data: Uint8Array): { channelData: Float32Array[]; samplesDecoded: number; sampleRate: number } | Promise<{ channelData: Float32Array[]; samplesDecoded: number; sampleRate: number }>;
  flush(): Promise<{ channelData: Float32Array[]; samplesDecoded: number; sampleRate: number }>;
  free(): void;
}

/** Ogg Opus (always decoded at 48 kHz, Opus's internal rate) via libopus in WASM. */
export function decodeOggOpus(bytes: Uint8Array, limits: DecodeLimits): Promise<DecodedAudio> {
  return decodeStream(new OggOpusDecoder(), bytes, limits, 'Ogg Opus');
}

/** Ogg Vorbis via libvorbis in WASM. */
export function decodeOggVorbis(bytes: Uint8Array, limits: DecodeLimits): Promise<DecodedAudio> {
  return decodeStream(new OggVorbisDecoder(), bytes, limits, 'Ogg Vorbis');
}

async function decodeStream(decoder: StreamingDecoder, bytes: Uint8Array, limits: DecodeLimits, format: string): Promise<DecodedAudio> {
  await decoder.ready;
  try {
    const collected = new DecodedAudioCollector(limits);
    for (const slice of slices(bytes)) {
      const { channelData, samplesDecoded, sampleRate } = await decoder.decode(slice);
      collected.add(channelData, samplesDecoded, sampleRate);
    }
    const rest = await decoder.flush();
    collected.add(rest.channelData, rest.samplesDecoded, rest.sampleRate);
    return collected.finish(format);
  } finally {
    decoder.free();
  }
}
