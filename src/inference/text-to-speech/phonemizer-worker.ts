/** Worker thread for Piper's text front end (espeak phonemes → ids), next to the ORT worker. */
import { serveWorker, type CallContext } from '../worker/serve-worker.js';
import { SerialQueue } from '../worker/serial-queue.js';
import { PiperPhonemizer } from './piper-phonemizer.js';

serveWorker<{ configPath: string }>(async ({ configPath }) => {
  const phonemizer = await PiperPhonemizer.load(configPath);
  // Queued so that pieces of a request that was cancelled meanwhile are never phonemised.
  const queue = new SerialQueue();
  return { ids: ({ text }: { text: string }, { signal }: CallContext) => queue.run(() => phonemizer.ids(text), signal) };
});
