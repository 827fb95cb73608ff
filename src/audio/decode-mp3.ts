import { MPEGDecoder } from 'mpg123-decoder';
import { DecodedAudioCollector, slices, type DecodeLimits, type DecodedAudio } from './decoded-audio.js';

/**
 * MPEG audio (layer I/II/III) via mpg123 compiled to WASM. mpg123 skips junk silently (no
 * samples, no errors), so "nothing decoded" is the only reliable corruption signal.
 */
export async function decodeMp3(bytes: Uint8Array, limits: DecodeLimits): Promise<DecodedAudio> {
  const decoder = new MPEGDecoder();
  await decoder.ready;
  try {
    const collected = new DecodedAudioCollector(limits);
    for (const slice of slices(bytes)) {
      const { channelData, samplesDecoded, sampleRate } = decoder.decode(slice);
      collected.add(channelData, samplesDecoded, sampleRate);
    }
    return collected.finish('MP3');
  } finally {
    decoder.free();
  }
}
