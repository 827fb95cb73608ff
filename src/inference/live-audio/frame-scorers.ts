/**
 * Where live streams get their speech detector: one Silero VAD session per worker, a fresh
 * recurrent state per stream (SileroVad.openStream). Without a model file, no stream can detect speech.
 */
import { SileroVad } from '../speech-to-text/silero-vad.js';
import type { FrameScorer } from './live-audio-converter.js';
import type { LiveAudioWorkerInit } from './live-audio-protocol.js';

interface FrameScorers {
  open(): FrameScorer | undefined;
  dispose(): Promise<void>;
}

export async function loadFrameScorers(init: LiveAudioWorkerInit): Promise<FrameScorers> {
  if (init.vadModelPath === undefined) return { open: () => undefined, dispose: async () => {} };
  const vad = await SileroVad.load(init.vadModelPath);
  return { open: () => vad.openStream(), dispose: () => vad.dispose() };
}
