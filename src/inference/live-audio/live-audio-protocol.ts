/** What the main thread and live-audio-worker.ts exchange. */
import type { LiveAudioEncoding } from '../types.js';
import type { CallContext } from '../worker/worker-api.js';

export interface LiveAudioWorkerInit {
  /** The speech detector's model file (Silero VAD ONNX); streams cannot detect speech without it. */
  vadModelPath?: string;
}

export interface LiveAudioApi {
  push(
    request: { streamId: number; inputSampleRate: number; encoding: LiveAudioEncoding; detectSpeech: boolean; audio: Uint8Array },
    context: CallContext,
  ): Promise<{ samples: Float32Array; speechProbabilities: Float32Array }>;
  close(request: { streamId: number }, context: CallContext): Promise<void>;
}
