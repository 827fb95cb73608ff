/** Speech chunks (samples at 16 kHz) as the seconds clients see. */
import type { SpeechRegion } from '../../types.js';
import { VAD_SAMPLE_RATE, type SpeechChunk } from './speech-timestamps.js';

export function toSpeechRegions(chunks: readonly SpeechChunk[], sampleRate = VAD_SAMPLE_RATE): SpeechRegion[] {
  return chunks.map(({ start, end }) => ({ start: roundMs(start / sampleRate), end: roundMs(end / sampleRate) }));
}

function roundMs(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
