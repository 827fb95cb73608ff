/**
 * The narrow interfaces the HTTP layer sees. Engine libraries (transformers.js, onnxruntime,
 * Apertium) never leak past these types.
 */
import type { PcmAudio } from '../audio/pcm-audio.js';

export const TASKS = Object.freeze(['text-classification', 'translation', 'speech-to-text', 'text-to-speech'] as const);

export type Task = (typeof TASKS)[number];

export interface Disposable {
  dispose(): Promise<void>;
}

/**
 * Every task call takes the request's signal: it aborts when the client goes away, and the
 * model then drops the work (queued work at once, running work at its next step) instead of
 * spending CPU on an answer nobody reads. An aborted call rejects with the signal's reason.
 */
export interface Cancellable {
  signal?: AbortSignal;
}

export interface Label {
  label: string;
  confidence: number;
}

export interface ClassifyOptions extends Cancellable {
  /** Candidate labels, for zero-shot and embedding models that accept them per request. */
  labels?: readonly string[];
}

export interface Classifier extends Disposable {
  /** Every label of the model, sorted by confidence, descending. */
  classify(text: string, options?: ClassifyOptions): Promise<Label[]>;
}

export interface TranslateOptions extends Cancellable {
  targetLanguage: string;
  sourceLanguage?: string;
}

export interface Translator extends Disposable {
  /** Short codes (`es`, `fr`, …) this model can translate into. */
  readonly targetLanguages: readonly string[];
  /** Short codes it can translate from; absent means "any, detected when not given". */
  readonly sourceLanguages?: readonly string[];
  translate(text: string, options: TranslateOptions): Promise<string>;
}

export interface TranscribeOptions extends Cancellable {
  language?: string;
  task?: 'transcribe' | 'translate';
  /** Ask for timestamped segments (verbose_json). */
  segments?: boolean;
}

export interface TranscriptSegment {
  start: number;
  end: number;
  text: string;
}

export interface Transcript {
  text: string;
  language?: string;
  duration: number;
  segments?: TranscriptSegment[];
}

/**
 * Audio exactly as uploaded. Transcribers decode it inside their worker thread, so decoding
 * never runs on the event loop and the compressed bytes are all that crosses threads.
 */
export interface EncodedAudio {
  bytes: Uint8Array;
  /** The client's declared media type, a hint only: formats are sniffed from the bytes. */
  contentType?: string;
  /** Longer audio is rejected with 413 while decoding. */
  maxSeconds: number;
}

export interface Transcriber extends Disposable {
  transcribe(audio: PcmAudio | EncodedAudio, options?: TranscribeOptions): Promise<Transcript>;
}

export interface SynthesizeOptions extends Cancellable {
  voice?: string;
  /** 1 is normal speed, 2 twice as fast. */
  speed?: number;
}

export interface Synthesizer extends Disposable {
  readonly sampleRate: number;
  /** Yields audio sentence by sentence so the caller can stream it. */
  synthesize(text: string, options?: SynthesizeOptions): AsyncIterable<PcmAudio>;
}

export interface ModelForTask {
  'text-classification': Classifier;
  translation: Translator;
  'speech-to-text': Transcriber;
  'text-to-speech': Synthesizer;
}
