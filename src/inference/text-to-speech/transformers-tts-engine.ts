/**
 * Engine `transformers-tts`: transformers.js `text-to-audio` waveform models (VITS / MMS-TTS)
 * in transformers.js layout under `<MODELS_DIR>/<id>`, run in their own synthesis worker.
 */
import type { Engine } from '../engine.js';
import { numberOption } from './piper-engine.js';
import { WorkerSynthesizer } from './worker-synthesizer.js';

export const transformersTtsEngine: Engine<'text-to-speech'> = {
  tasks: ['text-to-speech'],
  load(entry, context) {
    return WorkerSynthesizer.spawn(
      { engine: 'transformers-tts', modelsDir: context.modelsDir, modelId: entry.id, threads: numberOption(entry, 'threads') },
      entry.id,
    );
  },
  describe: () => ({ formats: ['mp3', 'wav'], speed: { min: 1, max: 1 } }),
};
