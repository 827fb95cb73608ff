/** What the synthesis and phonemizer workers are started with and serve (structured-cloneable). */
import type { CallContext } from '../worker/worker-api.js';
import { workerModule } from '../worker/worker-api.js';
import type { Dtype } from '../dtype.js';

/** The espeak-ng build both workers load (espeak-ng-wasm.ts). */
const ESPEAK_PACKAGE = '@echogarden/espeak-ng-emscripten';

export type SynthesisWorkerInit =
  | { engine: 'piper'; modelDir: string; onnxFile?: string; threads?: number; spinning?: boolean | number; memoryArena?: boolean }
  | { engine: 'kokoro'; modelDir: string; dtype: Dtype; threads?: number }
  | { engine: 'transformers-tts'; modelsDir: string; modelId: string; threads?: number };

/** The phonemizer worker's model: a Piper voice's .onnx.json, or a Kokoro folder (tokenizer and voices). */
export type PhonemizerInit = { engine: 'piper'; configPath: string } | { engine: 'kokoro'; modelDir: string };

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

/** The methods phonemizer-worker.ts serves (the espeak front end of Piper and Kokoro). */
export interface PhonemizerApi {
  /**
   * One sentence as the model input ids of its pieces, each of at most `limit` phonemes
   * (phoneme-pieces.ts). `voice`: the request's (Kokoro phonemises in its language; a Piper voice has one).
   */
  pieces(sentence: { text: string; voice?: string; limit: number }, context: CallContext): Promise<number[][]>;
}

export const SYNTHESIS_WORKER = workerModule<SynthesisApi, SynthesisWorkerInit>(import.meta.url, './synthesis-worker', {
  packages: [ESPEAK_PACKAGE],
});
export const PHONEMIZER_WORKER = workerModule<PhonemizerApi, PhonemizerInit>(import.meta.url, './phonemizer-worker', {
  packages: [ESPEAK_PACKAGE],
});
