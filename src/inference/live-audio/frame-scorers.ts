/**
 * Where live streams get their speech detector: one Silero VAD session per worker, a fresh
 * recurrent state per stream (SileroVad.openStream). Without a model file, no stream can detect speech.
 */
import { loadVadModel } from '../speech-to-text/vad/vad-model.js';
import type { FrameScorer } from './live-audio-converter.js';
import type { LiveAudioWorkerInit } from './live-audio-protocol.js';

interface FrameScorers {
  open(): FrameScorer | undefined;
  dispose(): Promise<void>;
}

export async function loadFrameScorers(init: LiveAudioWorkerInit): Promise<FrameScorers> {
  if (init.vadModelPath === undefined) return { open: () => undefined, dispose: async () => {} };
  // A broken VAD model fails only the streams that detect speech (naming it), not the others.
  const vad = await loadVadModel(init.vadModelPath).catch((error: unknown) => error as Error);
  if (vad instanceof Error) {
    return {
      open: () => {
        throw vad;
      },
      dispose: async () => {},
    };
  }
  return { open: () => vad.openStream(), dispose: () => vad.dispose() };
}
