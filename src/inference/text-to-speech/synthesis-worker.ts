/**
 * Worker thread that hosts one text-to-speech model. Phonemisation (WASM), tokenisation and
 * ORT inference all run synchronously on a JS thread, so they live here, off the event loop.
 */
import { serveWorker } from '../worker/serve-worker.js';
import { withTransfer } from '../worker/worker-protocol.js';
import { KokoroModel } from './kokoro-model.js';
import { PiperVoice } from './piper-voice.js';
import type { SentenceSynthesizer } from './sentence-synthesizer.js';
import type { SynthesisApi, SynthesisWorkerInit } from './synthesis-worker-init.js';

async function load(init: SynthesisWorkerInit): Promise<SentenceSynthesizer> {
  // Piper's and Kokoro's phonemes come from the phonemizer worker, so this worker only runs ORT;
  // Piper's pieces are scaled by WorkerSynthesizer, which knows which of them form one sentence.
  if (init.engine === 'piper')
    return PiperVoice.load(init.modelDir, {
      onnxFile: init.onnxFile,
      threads: init.threads,
      spinning: init.spinning,
      memoryArena: init.memoryArena,
      phonemize: false,
      normalize: false,
    });
  if (init.engine === 'kokoro') return KokoroModel.load({ modelDir: init.modelDir, dtype: init.dtype, threads: init.threads, phonemize: false });
  // Imported lazily: transformers.js takes seconds to import and Piper voices do not need it.
  const { TransformersTtsModel } = await import('./transformers-tts-model.js');
  return TransformersTtsModel.load(init);
}

serveWorker<SynthesisApi, SynthesisWorkerInit>(async (init) => {
  const model = await load(init);
  return {
    info: () => ({ sampleRate: model.sampleRate }),
    checkOptions: (options) => model.checkOptions(options),
    // One piece at a time, each key taking its turn (the fair queue; ORT blocks this thread anyway), so a piece whose
    // request was cancelled while it waited is skipped instead of synthesised for nobody.
    synthesize: (piece, { serial }) =>
      serial(async () => {
        const options = { speed: piece.speed, voice: piece.voice };
        const samples =
          'ids' in piece && model.synthesizeIds
            ? await model.synthesizeIds(piece.ids, options)
            : await model.synthesize('text' in piece ? piece.text : '', options);
        return withTransfer(samples, [samples.buffer as ArrayBuffer]);
      }),
    dispose: () => model.dispose(),
  };
});
