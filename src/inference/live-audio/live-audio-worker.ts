/**
 * Worker thread for live audio (realtime sessions): PCM16 or G.711 → 16 kHz floats and, when asked, a
 * speech probability per 512-sample frame. One converter per open stream, keyed by its id; a
 * stream unknown here (after a worker restart) starts afresh on its next push.
 */
import { serveWorker } from '../worker/serve-worker.js';
import { withTransfer } from '../worker/worker-protocol.js';
import { LiveAudioConverter } from './live-audio-converter.js';
import type { LiveAudioApi, LiveAudioWorkerInit } from './live-audio-protocol.js';
import { loadFrameScorers } from './frame-scorers.js';

serveWorker<LiveAudioApi, LiveAudioWorkerInit>(async (init) => {
  const scorers = await loadFrameScorers(init);
  const streams = new Map<number, LiveAudioConverter>();
  return {
    // Serial: pushes of one stream must not interleave on its state, and they are short.
    push: ({ streamId, inputSampleRate, encoding, detectSpeech, audio }, { serial }) =>
      serial(async () => {
        let stream = streams.get(streamId);
        if (!stream) {
          stream = new LiveAudioConverter(inputSampleRate, detectSpeech ? scorers.open() : undefined, encoding);
          streams.set(streamId, stream);
        }
        const { samples, speechProbabilities } = await stream.push(audio);
        return withTransfer({ samples, speechProbabilities }, [samples.buffer as ArrayBuffer, speechProbabilities.buffer as ArrayBuffer]);
      }),
    close: ({ streamId }, { serial }) =>
      serial(() => {
        streams.delete(streamId);
      }),
    dispose: () => scorers.dispose(),
  };
});
