/**
 * Worker thread for audio encoding (LAME in WASM is CPU work: ~5–10 ms per second of speech).
 * It holds one MP3 stream encoder per open response, keyed by a stream id.
 */
import { compileMp3Codec, createMp3StreamEncoder, type Mp3StreamEncoder } from '../../audio/encode-mp3.js';
import { encodeWav } from '../../audio/encode-wav.js';
import { serveWorker } from '../worker/serve-worker.js';
import { withTransfer } from '../worker/worker-protocol.js';

/** The methods this worker serves; `id` names one open MP3 stream. */
export interface EncoderApi {
  openMp3(request: { id: number; sampleRate: number }): Promise<void>;
  encodeMp3(request: { id: number; samples: Float32Array }): Promise<Uint8Array>;
  finishMp3(request: { id: number }): Promise<Uint8Array>;
  abortMp3(request: { id: number }): Promise<void>;
  wav(audio: { samples: Float32Array; sampleRate: number }): Promise<Uint8Array>;
}

serveWorker<EncoderApi>(async () => {
  const codec = await compileMp3Codec();
  const streams = new Map<number, Mp3StreamEncoder>();
  const stream = (id: number) => {
    const encoder = streams.get(id);
    if (!encoder) throw new Error(`no open MP3 stream ${id}`);
    return encoder;
  };
  const bytes = (data: Uint8Array) => withTransfer(data, [data.buffer as ArrayBuffer]);
  return {
    openMp3: async ({ id, sampleRate }) => {
      streams.set(id, await createMp3StreamEncoder({ sampleRate, codec }));
    },
    encodeMp3: ({ id, samples }) => bytes(stream(id).encode(samples)),
    finishMp3: ({ id }) => {
      const tail = stream(id).finish();
      streams.delete(id);
      return bytes(tail);
    },
    abortMp3: ({ id }) => {
      streams.delete(id);
    },
    wav: ({ samples, sampleRate }) => bytes(encodeWav({ samples, sampleRate })),
  };
});
