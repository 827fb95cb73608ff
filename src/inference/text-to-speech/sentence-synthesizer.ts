/**
 * What the synthesis worker needs from an engine: one sentence in, mono samples out. The
 * worker and WorkerSynthesizer handle sentence splitting, streaming and threads.
 */
export interface SentenceSynthesizer {
  readonly sampleRate: number;
  /** Throws a ValidationError when the model does not have this voice or cannot honour the speed. */
  checkOptions(options: { speed?: number; voice?: string }): void;
  synthesize(sentence: string, options: { speed?: number; voice?: string }): Promise<Float32Array>;
  /** For engines with a separate text front end (Piper): the sentence as its model input ids. */
  synthesizeIds?(ids: readonly number[], options: { speed?: number; voice?: string }): Promise<Float32Array>;
  dispose(): Promise<void>;
}
