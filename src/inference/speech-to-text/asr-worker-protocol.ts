/** What the main thread and asr-worker.ts exchange (structured-cloneable data only). */
import type { PcmAudio } from '../../audio/pcm-audio.js';
import type { LogLevel } from '../../config/load-config.js';
import type { DecodingOptions, EncodedAudio, Transcript, TranscriptSegment } from '../types.js';
import type { CallContext } from '../worker/worker-api.js';
import type { Dtype } from './asr-options.js';
import type { VadFilterRequest } from './vad/vad-filter.js';

export interface AsrWorkerInit {
  /** transformers.js resolves `modelId` under this folder (env.localModelPath). */
  modelsDir: string;
  modelId: string;
  dtype: Dtype;
  threads: number;
  /** Compute log-mel features with WhisperLogMel instead of transformers.js's extractor. */
  fastFeatures: boolean;
  /** Linux nice value for the worker thread (0 = normal priority). */
  nice: number;
  /** Silero VAD's onnx file for `vad_filter`; absent when it is not installed. */
  vadModelFile?: string;
  /** onnxruntime's CPU memory arena on (faster reuse) or off (lower peak RSS). */
  memoryArena?: boolean;
  /** onnxruntime's weight pre-packing (off: one copy of each weight; see AsrOptions). */
  prepackWeights: boolean;
  /** onnxruntime's compute threads spin between operators (AsrOptions.spinning). */
  spinning: boolean;
  /** Bytes a batch of VAD windows may add (AsrOptions.batchMemoryMb); 0: one window at a time. */
  batchMemoryBytes: number;
  /** Intra-op threads of the encoder in a thread of its own (AsrOptions.encoderThreads); 0: in the worker's thread. */
  encoderThreads: number;
  /** The worker's log lines (which decoder runs what, a decoder that cannot be opened); absent: info. */
  logLevel?: LogLevel;
}

export interface AsrRequest {
  audio: PcmAudio | EncodedAudio;
  /** A Whisper language code, already validated (multilingual models only). */
  language?: string;
  /** No language was given to a multilingual model: identify it from the audio first. */
  detectLanguage?: boolean;
  task?: 'transcribe' | 'translate';
  segments: boolean;
  /** Word timestamps (each segment's `words`). */
  words?: boolean;
  chunkLengthSeconds: number;
  strideSeconds: number;
  maxNewTokens?: number;
  /** Absent: no VAD filter. */
  vad?: VadFilterRequest;
  /** Absent: greedy with openai/whisper's temperature fallback. */
  decoding?: DecodingOptions;
  /**
   * The caller takes segments as they are decoded (AsrProgress): the first VAD window is then
   * decoded alone before the rest are batched, so its text is not held for the whole batch.
   */
  stream?: boolean;
}

export type AsrResponse = Transcript;

/** Reported while a long transcription runs: the segments just decoded (seconds, text as decoded). */
export interface AsrProgress {
  segments: TranscriptSegment[];
}

/** The methods asr-worker.ts serves. */
export interface AsrApi {
  transcribe(request: AsrRequest, context: CallContext<AsrProgress>): Promise<AsrResponse>;
}
