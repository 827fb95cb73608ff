/**
 * Engine `kokoro`: Kokoro-82M as the hub repo onnx-community/Kokoro-82M-v1.0-ONNX lays it out
 * (onnx/model<suffix>.onnx, tokenizer.json, voices/<name>.bin), run in its own synthesis worker
 * (ORT) with a phonemizer worker (espeak) beside it. Manifest options: `dtype` (which ONNX
 * weights), `threads` (ORT intra-op threads), `firstPieceWords` (as piper-engine.ts).
 */
import { defineEngine } from '../engine.js';
import { KokoroVoices } from './kokoro-voices.js';
import { KokoroOptions, describeVoice } from './tts-options.js';
import { firstPiece, WorkerSynthesizer } from './worker-synthesizer.js';

const speaking = describeVoice({ min: 0.25, max: 4 });

export const kokoroEngine = defineEngine({
  tasks: ['text-to-speech'],
  options: KokoroOptions,
  load(entry, context, options) {
    return WorkerSynthesizer.spawn(
      { engine: 'kokoro', modelDir: context.modelDir, dtype: options.dtype, threads: options.threads },
      entry.id,
      firstPiece(options.firstPieceWords),
    );
  },
  describe: (entry) => ({ ...speaking(), ...KokoroVoices.of(entry).describe() }),
});
