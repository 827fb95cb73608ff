import { audioTooLong } from './decode-budget.js';
import type { PcmCollector } from './pcm-collector.js';
import { readWavLayout } from './wav-layout.js';
import { frameReader } from './wav-samples.js';

/** Frames converted per collector call: small buffers, and the deadline checked every ~16k frames. */
const CHUNK_FRAMES = 1 << 14;

/**
 * RIFF/WAVE: integer PCM (8–32 bit), float (32/64 bit), A-law, µ-law and IMA ADPCM. The header
 * is checked first (wav-layout.ts) and the duration limit applied from it, so an oversized
 * file is refused before a sample is converted; then the data goes to the collector in chunks.
 */
export function decodeWav(bytes: Uint8Array, collector: PcmCollector): void {
  const layout = readWavLayout(bytes);
  if (layout.frames / layout.sampleRate > collector.maxSeconds) throw audioTooLong(collector.maxSeconds);
  const read = frameReader(bytes, layout);
  // Whole ADPCM blocks per chunk, since blocks are the unit the reader decodes.
  const chunkFrames = Math.max(1, Math.floor(CHUNK_FRAMES / layout.framesPerBlock)) * layout.framesPerBlock;
  const channels = Array.from({ length: layout.channels }, () => new Float32Array(Math.min(chunkFrames, layout.frames)));
  for (let first = 0; first < layout.frames; first += chunkFrames) {
    const count = Math.min(chunkFrames, layout.frames - first);
    read(first, count, channels);
    collector.add(channels, count, layout.sampleRate);
  }
}
