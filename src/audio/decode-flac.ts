import { FLACDecoder } from '@wasm-audio-decoders/flac';
import { DecodedAudioCollector, slices, type DecodeLimits, type DecodedAudio } from './decoded-audio.js';

/** Native FLAC (the "fLaC" stream) via libFLAC compiled to WASM. */
export async function decodeFlac(bytes: Uint8Array, limits: DecodeLimits): Promise<DecodedAudio> {
  const decoder = new FLACDecoder();
  await decoder.ready;
  try {
    const collected = new DecodedAudioCollector(limits);
    for (const slice of slices(bytes)) {
      const { channelData, samplesDecoded, sampleRate } = await decoder.decode(slice);
      collected.add(channelData, samplesDecoded, sampleRate);
    }
    const rest = await decoder.flush();
    collected.add(rest.channelData, rest.samplesDecoded, rest.sampleRate);
    return collected.finish('FLAC');
  } finally {
    decoder.free();
  }
}
