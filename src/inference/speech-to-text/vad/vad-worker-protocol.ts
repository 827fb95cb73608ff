/** What the main thread and vad-worker.ts exchange (structured-cloneable data only). */
import type { PcmAudio } from '../../../audio/pcm-audio.js';
import type { SpeechRegion, VadOptions } from '../../types.js';
import type { CallContext } from '../../worker/worker-api.js';

export interface VadWorkerInit {
  /** The Silero VAD v6 graph (silero-vad.ts). */
  onnxFile: string;
}

interface VadRequest {
  audio: PcmAudio;
  options: VadOptions;
}

export interface VadApi {
  detectSpeech(request: VadRequest, context: CallContext): Promise<SpeechRegion[]>;
}
