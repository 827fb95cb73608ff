/** What the synthesis and phonemizer workers are started with and serve (structured-cloneable). */
import type { CallContext } from '../worker/worker-api.js';
import { workerModule } from '../worker/worker-api.js';

export type SynthesisWorkerInit =
  | { engine: 'piper'; modelDir: string; onnxFile?: string; threads?: number; spinning?: boolean | number }
  | { engine: 'transformers-tts'; modelsDir: string; modelId: string; threads?: number };

interface VoiceOptions {
  speed?: number;
  voice?: string;
}

/** One piece of speech: its text, or the phoneme ids the phonemizer worker made of it. */
export type PieceInput = { text: string } | { ids: number[] };

/** The methods synthesis-worker.ts serves. */
export interface SynthesisApi {
  info(): Promise<{ sampleRate: number }>;
  /** Rejects a voice or speed the model cannot honour (a ValidationError, 400). */
  checkOptions(options: VoiceOptions): Promise<void>;
  synthesize(piece: PieceInput & VoiceOptions, context: CallContext): Promise<Float32Array>;
}

/** The methods phonemizer-worker.ts serves (Piper's espeak front end). */
export interface PhonemizerApi {
  ids(piece: { text: string }, context: CallContext): Promise<number[]>;
}

export const SYNTHESIS_WORKER = workerModule<SynthesisApi, SynthesisWorkerInit>(import.meta.url, './synthesis-worker');
export const PHONEMIZER_WORKER = workerModule<PhonemizerApi, { configPath: string }>(import.meta.url, './phonemizer-worker');
