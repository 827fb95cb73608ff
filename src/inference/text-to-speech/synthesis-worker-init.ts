/** What the synthesis worker is started with (structured-cloneable). */
export type SynthesisWorkerInit =
  | { engine: 'piper'; modelDir: string; onnxFile?: string; threads?: number }
  | { engine: 'transformers-tts'; modelsDir: string; modelId: string; threads?: number };
