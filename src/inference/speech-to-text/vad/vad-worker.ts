/**
 * Worker thread that owns one Silero VAD session for the `voice-activity-detection` task:
 * resampling to 16 kHz and the model run happen here, off the event loop.
 */
import { resample } from '../../../audio/resample.js';
import { serveWorker } from '../../worker/serve-worker.js';
import { loadVadModel } from './vad-model.js';
import { VAD_SAMPLE_RATE } from './speech-timestamps.js';
import { toSpeechRegions } from './vad-regions.js';
import type { VadApi, VadWorkerInit } from './vad-worker-protocol.js';

serveWorker<VadApi, VadWorkerInit>(async (init) => {
  const vad = await loadVadModel(init.onnxFile);
  return {
    detectSpeech: ({ audio, options }, { signal, serial }) =>
      serial(async () => {
        const samples = resample(audio.samples, audio.sampleRate, VAD_SAMPLE_RATE);
        return toSpeechRegions(await vad.speechChunks(samples, options, signal));
      }),
    dispose: () => vad.dispose(),
  };
});
