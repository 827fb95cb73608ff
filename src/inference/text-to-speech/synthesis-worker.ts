/**
 * Worker thread that hosts one text-to-speech model. Phonemisation (WASM), tokenisation and
 * ORT inference all run synchronously on a JS thread, so they live here, off the event loop.
 */
import { serveWorker, type CallContext } from '../worker/serve-worker.js';
import { SerialQueue } from '../worker/serial-queue.js';
import { withTransfer } from '../worker/worker-protocol.js';
import { PiperVoice } from './piper-voice.js';
import type { SentenceSynthesizer } from './sentence-synthesizer.js';
import type { SynthesisWorkerInit } from './synthesis-worker-init.js';

async function load(init: SynthesisWorkerInit): Promise<SentenceSynthesizer> {
  // Piper's phonemes come from the phonemizer worker, so this worker only runs ORT.
  if (init.engine === 'piper') return PiperVoice.load(init.modelDir, { onnxFile: init.onnxFile, threads: init.threads, phonemize: false });
  // Imported lazily: transformers.js takes seconds to import and Piper voices do not need it.
  const { TransformersTtsModel } = await import('./transformers-tts-model.js');
  return TransformersTtsModel.load(init);
}

serveWorker<SynthesisWorkerInit>(async (init) => {
  const model = await load(init);
  // One piece at a time, in arrival order (ORT blocks this thread anyway), so a piece whose
  // request was cancelled while it waited is skipped instead of synthesised for nobody.
  const queue = new SerialQueue();
  return {
    info: () => ({ sampleRate: model.sampleRate }),
    checkOptions: (options: { speed?: number; voice?: string }) => model.checkOptions(options),
    synthesize: ({ text, ids, speed, voice }: { text?: string; ids?: number[]; speed?: number; voice?: string }, { signal }: CallContext) =>
      queue.run(async () => {
        const samples =
          ids && model.synthesizeIds ? await model.synthesizeIds(ids, { speed, voice }) : await model.synthesize(text ?? '', { speed, voice });
        return withTransfer(samples, [samples.buffer as ArrayBuffer]);
      }, signal),
    dispose: () => model.dispose(),
  };
});
