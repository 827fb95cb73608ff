/**
 * Converts WAV data to Float32 in [-1, 1), a range of frames at a time. Integer PCM, float, G.711
 * (A-law, µ-law) and IMA ADPCM are decoded here directly: wavefile's generic converter was slow
 * (docs/benchmarks.md, "Audio codecs"), needs the whole file in memory several times over, and its
 * ADPCM decoder reads stereo as mono. Offsets are derived from a checked WavLayout, so every read
 * is inside the data chunk.
 */
import { ALAW, MULAW } from './g711.js';
import type { WavLayout } from './wav-layout.js';

/** Writes frames first … first + count − 1 into channels[c][0 … count − 1]. */
type FrameReader = (first: number, count: number, channels: Float32Array[]) => void;

export function frameReader(bytes: Uint8Array, layout: WavLayout): FrameReader {
  if (layout.encoding === 'ima-adpcm') return adpcmReader(bytes, layout);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const read = sampleReader(bytes, view, layout);
  const bytesPerSample = layout.bitsPerSample / 8;
  return (first, count, channels) => {
    for (let frame = 0; frame < count; frame++) {
      const frameStart = layout.dataStart + (first + frame) * layout.blockAlign;
      for (let c = 0; c < channels.length; c++) channels[c]![frame] = read(frameStart + c * bytesPerSample);
    }
  };
}

/** A reader of one sample at a byte offset, scaled to [-1, 1). */
function sampleReader(bytes: Uint8Array, view: DataView, layout: WavLayout): (offset: number) => number {
  switch (`${layout.encoding}${layout.bitsPerSample}`) {
    case 'pcm8': // 8-bit WAV is unsigned, centred on 128
      return (o) => (bytes[o]! - 128) / 128;
    case 'pcm16':
      return (o) => view.getInt16(o, true) / 32768;
    case 'pcm24':
      return (o) => (bytes[o]! | (bytes[o + 1]! << 8) | (view.getInt8(o + 2) << 16)) / 8388608;
    case 'pcm32':
      return (o) => view.getInt32(o, true) / 2147483648;
    case 'float32':
      return (o) => view.getFloat32(o, true);
    case 'float64':
      return (o) => view.getFloat64(o, true);
    case 'alaw8':
      return (o) => ALAW[bytes[o]!]!;
    case 'mulaw8':
      return (o) => MULAW[bytes[o]!]!;
    default:
      throw new Error(`no reader for ${layout.bitsPerSample}-bit ${layout.encoding}`); // wav-layout admits none
  }
}

const ADPCM_INDEX_STEPS = [-1, -1, -1, -1, 2, 4, 6, 8, -1, -1, -1, -1, 2, 4, 6, 8];
const ADPCM_STEPS = [
  7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 19, 21, 23, 25, 28, 31, 34, 37, 41, 45, 50, 55, 60, 66, 73, 80, 88, 97, 107, 118, 130, 143, 157, 173, 190, 209, 230, 253,
  279, 307, 337, 371, 408, 449, 494, 544, 598, 658, 724, 796, 876, 963, 1060, 1166, 1282, 1411, 1552, 1707, 1878, 2066, 2272, 2499, 2749, 3024, 3327, 3660,
  4026, 4428, 4871, 5358, 5894, 6484, 7132, 7845, 8630, 9493, 10442, 11487, 12635, 13899, 15289, 16818, 18500, 20350, 22385, 24623, 27086, 29794, 32767,
];

/**
 * Microsoft IMA ADPCM: each block restarts the predictor from its header, so blocks decode
 * independently. `first` is always a block boundary (decode-wav reads whole blocks).
 */
function adpcmReader(bytes: Uint8Array, layout: WavLayout): FrameReader {
  const { channels: channelCount, blockAlign, framesPerBlock, dataStart, dataBytes } = layout;
  const wordBytes = 4 * channelCount;
  return (first, count, channels) => {
    for (let done = 0; done < count; done += framesPerBlock) {
      const block = dataStart + ((first + done) / framesPerBlock) * blockAlign;
      const blockEnd = Math.min(block + blockAlign, dataStart + dataBytes);
      const words = Math.floor((blockEnd - block - wordBytes) / wordBytes);
      for (let c = 0; c < channelCount; c++) {
        const out = channels[c]!;
        const header = block + 4 * c;
        let predictor = ((bytes[header]! | (bytes[header + 1]! << 8)) << 16) >> 16;
        let index = Math.min(bytes[header + 2]!, ADPCM_STEPS.length - 1);
        out[done] = predictor / 32768;
        for (let w = 0; w < words; w++) {
          const word = block + wordBytes + (w * channelCount + c) * 4;
          for (let n = 0; n < 8; n++) {
            const nibble = (bytes[word + (n >> 1)]! >> ((n & 1) * 4)) & 0x0f;
            const step = ADPCM_STEPS[index]!;
            let diff = step >> 3;
            if (nibble & 4) diff += step;
            if (nibble & 2) diff += step >> 1;
            if (nibble & 1) diff += step >> 2;
            predictor = Math.max(-32768, Math.min(32767, nibble & 8 ? predictor - diff : predictor + diff));
            index = Math.max(0, Math.min(ADPCM_STEPS.length - 1, index + ADPCM_INDEX_STEPS[nibble]!));
            out[done + 1 + w * 8 + n] = predictor / 32768;
          }
        }
      }
    }
  };
}
