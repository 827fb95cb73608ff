/**
 * Engine `piper`: a Piper voice (`<name>.onnx` + `<name>.onnx.json`) in the model folder, run
 * in its own synthesis worker (ORT) with a phonemizer worker (espeak) beside it. Manifest options: `onnxFile` (when the folder holds more
 * than one .onnx), `threads` (ORT intra-op threads; ORT's default when absent), `spinning` (idle ORT threads spin: true, the default; false; or at most n µs),
 * `firstPieceWords` (how much of a first sentence is sent first: splitFirstPiece), `memoryArena` (onnxruntime's arena; off by default).
 */
import { defineEngine } from '../engine.js';
import { PiperOptions, describeVoice } from './tts-options.js';
import { firstPiece, WorkerSynthesizer } from './worker-synthesizer.js';

export const piperEngine = defineEngine({
  tasks: ['text-to-speech'],
  options: PiperOptions,
  load(entry, context, options) {
    return WorkerSynthesizer.spawn(
      {
        engine: 'piper',
        modelDir: context.modelDir,
        onnxFile: options.onnxFile,
        threads: options.threads,
        spinning: options.spinning,
        memoryArena: options.memoryArena,
      },
      entry.id,
      firstPiece(options.firstPieceWords),
    );
  },
  describe: describeVoice({ min: 0.25, max: 4 }),
});
