/**
 * Engine `transformers-tts`: transformers.js `text-to-audio` waveform models (VITS / MMS-TTS)
 * in transformers.js layout under `<MODELS_DIR>/<id>`, run in their own synthesis worker.
 * Manifest option: `threads` (ORT intra-op threads).
 */
import { defineEngine } from '../engine.js';
import { TransformersTtsOptions, describeVoice } from './tts-options.js';
import { WorkerSynthesizer } from './worker-synthesizer.js';

export const transformersTtsEngine = defineEngine({
  tasks: ['text-to-speech'],
  options: TransformersTtsOptions,
  load(entry, context, options) {
    return WorkerSynthesizer.spawn({ engine: 'transformers-tts', modelsDir: context.modelsDir, modelId: entry.id, threads: options.threads }, entry.id);
  },
  describe: describeVoice({ min: 1, max: 1 }),
});
