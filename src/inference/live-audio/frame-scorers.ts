/**
 * Where live streams get their speech detector: one Silero VAD model per worker, a fresh
 * recurrent state per stream. Without a model file, no stream can detect speech.
 */
import type { FrameScorer } from './live-audio-converter.js';
import type { LiveAudioWorkerInit } from './live-audio-protocol.js';

export interface FrameScorers {
  open(): FrameScorer | undefined;
  dispose(): Promise<void>;
}

export async function loadFrameScorers(init: LiveAudioWorkerInit): Promise<FrameScorers> {
  if (init.vadModelPath === undefined) return { open: () => undefined, dispose: async () => {} };
  throw new Error('Silero VAD is not wired yet');
}
