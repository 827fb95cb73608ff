/** Worker thread for Piper's text front end (espeak phonemes → ids), next to the ORT worker. */
import { serveWorker } from '../worker/serve-worker.js';
import { PiperPhonemizer } from './piper-phonemizer.js';

serveWorker<{ configPath: string }>(async ({ configPath }) => {
  const phonemizer = await PiperPhonemizer.load(configPath);
  return { ids: ({ text }: { text: string }) => phonemizer.ids(text) };
});
