/**
 * Engine `piper`: a Piper voice (`<name>.onnx` + `<name>.onnx.json`) in the model folder, run
 * in its own synthesis worker (ORT) with a phonemizer worker (espeak) beside it. Manifest options: `onnxFile` (when the folder holds more
 * than one .onnx), `threads` (ORT intra-op threads; ORT's default when absent).
 */
import type { Engine } from '../engine.js';
import type { ManifestEntry } from '../manifest.js';
import { WorkerSynthesizer } from './worker-synthesizer.js';

export const piperEngine: Engine<'text-to-speech'> = {
  tasks: ['text-to-speech'],
  load(entry, context) {
    return WorkerSynthesizer.spawn(
      { engine: 'piper', modelDir: context.modelDir, onnxFile: stringOption(entry, 'onnxFile'), threads: numberOption(entry, 'threads') },
      entry.id,
    );
  },
  describe: () => ({ formats: ['mp3', 'wav'], speed: { min: 0.25, max: 4 } }),
};

export function stringOption(entry: ManifestEntry, name: string): string | undefined {
  const value = entry.options?.[name];
  return typeof value === 'string' ? value : undefined;
}

export function numberOption(entry: ManifestEntry, name: string): number | undefined {
  const value = entry.options?.[name];
  return typeof value === 'number' ? value : undefined;
}
