/**
 * What the transcription filter's VAD listens to: the audio with very quiet stretches raised.
 * Silero VAD hears speech whatever its level above a floor, and nothing below it: a FLEURS clip
 * whose loudest sample is at −48 dBFS is found as recorded and at −10 dB, and missed whole at
 * −20 dB, where Whisper without the filter still transcribes it (docs/benchmarks.md, "Speech to text").
 * So each 32-ms frame is raised until the loudest sample within ±1 s of it reaches
 * VAD_FLOOR_PEAK, by at most VAD_MAX_GAIN; frames near louder audio are left as they are, so
 * ordinary recordings reach the VAD unchanged. Only the VAD hears this; Whisper hears the
 * original (with its quiet regions raised by vad-filter.ts, regionGain).
 */
import type { PcmReader } from '../../../audio/pcm16-buffer.js';
import { VAD_FRAME_SAMPLES } from './speech-timestamps.js';

/** −30 dBFS: 20 dB above where Silero stops hearing speech on the shared clips. */
export const VAD_FLOOR_PEAK = 10 ** (-30 / 20);
/** 40 dB at most: 16-bit dither (about −90 dBFS) stays at or below −50 dBFS. */
export const VAD_MAX_GAIN = 100;
/** ±1 s in frames: a quiet word right after a loud one is measured with it. */
const REACH_FRAMES = Math.ceil(16_000 / VAD_FRAME_SAMPLES);

/**
 * `source` with every frame raised as above. Each sample's gain depends only on the audio within
 * ±1 s of its frame, so reads of any size and order give the same samples.
 */
export function vadLeveledReader(source: PcmReader): PcmReader {
  return {
    length: source.length,
    read(start, end) {
      const from = Math.max(0, start);
      const to = Math.min(end, source.length);
      if (to <= from) return new Float32Array(0);
      const firstFrame = Math.floor(from / VAD_FRAME_SAMPLES);
      const lastFrame = Math.floor((to - 1) / VAD_FRAME_SAMPLES);
      const peakFrom = Math.max(0, firstFrame - REACH_FRAMES);
      const peakTo = lastFrame + REACH_FRAMES + 1;
      const peaks = framePeaks(source.read(peakFrom * VAD_FRAME_SAMPLES, peakTo * VAD_FRAME_SAMPLES));
      const out = Float32Array.from(source.read(from, to));
      for (let frame = firstFrame; frame <= lastFrame; frame++) {
        let peak = 0;
        const near = frame - peakFrom;
        for (let k = Math.max(0, near - REACH_FRAMES); k <= Math.min(peaks.length - 1, near + REACH_FRAMES); k++) peak = Math.max(peak, peaks[k]!);
        const gain = frameGain(peak);
        if (gain === 1) continue;
        const a = Math.max(from, frame * VAD_FRAME_SAMPLES) - from;
        const b = Math.min(to, (frame + 1) * VAD_FRAME_SAMPLES) - from;
        for (let i = a; i < b; i++) out[i] = out[i]! * gain;
      }
      return out;
    },
  };
}

/** The gain for a frame whose ±1 s reaches `peak`: 1 at or above the floor or for digital silence. */
export function frameGain(peak: number): number {
  if (peak >= VAD_FLOOR_PEAK || peak === 0) return 1;
  return Math.min(VAD_MAX_GAIN, VAD_FLOOR_PEAK / peak);
}

function framePeaks(pcm: Float32Array): Float32Array {
  const peaks = new Float32Array(Math.ceil(pcm.length / VAD_FRAME_SAMPLES));
  for (let i = 0; i < pcm.length; i++) {
    const frame = (i / VAD_FRAME_SAMPLES) | 0;
    const value = Math.abs(pcm[i]!);
    if (value > peaks[frame]!) peaks[frame] = value;
  }
  return peaks;
}
