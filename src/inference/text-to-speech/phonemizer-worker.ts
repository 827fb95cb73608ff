/** Worker thread for the text front end (espeak phonemes → ids) of Piper and Kokoro, next to the ORT worker. */
import { serveWorker } from '../worker/serve-worker.js';
import type { WorkerImplementation } from '../worker/worker-api.js';
import { KokoroPhonemizer } from './kokoro-phonemizer.js';
import { PiperPhonemizer } from './piper-phonemizer.js';
import type { PhonemizerApi, PhonemizerInit } from './synthesis-worker-init.js';

// Espeak in WebAssembly, no model: the thread need not load onnxruntime (ServeOptions.onnxRuntime).
serveWorker<PhonemizerApi, PhonemizerInit>(startPhonemizer, { onnxRuntime: false });

async function startPhonemizer(init: PhonemizerInit): Promise<WorkerImplementation<PhonemizerApi>> {
  const phonemize: (text: string, voice: string | undefined, limit: number) => Promise<number[][]> =
    init.engine === 'kokoro'
      ? await KokoroPhonemizer.load(init.modelDir).then((phonemizer) => (text, voice, limit) => phonemizer.pieces(text, voice, limit))
      : await PiperPhonemizer.load(init.configPath).then((phonemizer) => (text, _voice, limit) => phonemizer.pieces(text, limit));
  // Queued so that pieces of a request that was cancelled meanwhile are never phonemised.
  return { pieces: ({ text, voice, limit }, { serial }) => serial(() => phonemize(text, voice, limit)) };
}
