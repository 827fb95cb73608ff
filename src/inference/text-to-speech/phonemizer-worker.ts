/** Worker thread for Piper's text front end (espeak phonemes → ids), next to the ORT worker. */
import { serveWorker } from '../worker/serve-worker.js';
import { PiperPhonemizer } from './piper-phonemizer.js';
import type { PhonemizerApi } from './synthesis-worker-init.js';

serveWorker<PhonemizerApi, { configPath: string }>(async ({ configPath }) => {
  const phonemizer = await PiperPhonemizer.load(configPath);
  // Queued so that pieces of a request that was cancelled meanwhile are never phonemised.
  return { ids: ({ text }, { serial }) => serial(() => phonemizer.ids(text)) };
});
