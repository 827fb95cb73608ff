/**
 * Worker thread for audio encoding (LAME in WASM is CPU work: ~5–10 ms per second of speech).
 * It holds one MP3 stream encoder per open response, keyed by a stream id.
 */
import { compileMp3Codec, createMp3StreamEncoder, type Mp3StreamEncoder } from '../../audio/encode-mp3.js';
import { encodeWav } from '../../audio/encode-wav.js';
import { serveWorker } from '../worker/serve-worker.js';
import { withTransfer } from '../worker/worker-protocol.js';

serveWorker(async () => {
  const codec = await compileMp3Codec();
  const streams = new Map<number, Mp3StreamEncoder>();
  const stream = (id: number) => {
    const encoder = streams.get(id);
    if (!encoder) throw new Error(`no open MP3 stream ${id}`);
    return encoder;
  };
  const bytes = (data: Uint8Array) => withTransfer(data, [data.buffer as ArrayBuffer]);
  return {
    openMp3: async ({ id, sampleRate }: { id: number; sampleRate: number }) => {
      streams.set(id, await createMp3StreamEncoder({ sampleRate, codec }));
    },
    encodeMp3: ({ id, samples }: { id: number; samples: Float32Array }) => bytes(stream(id).encode(samples)),
    finishMp3: ({ id }: { id: number }) => {
      const tail = stream(id).finish();
      streams.delete(id);
      return bytes(tail);
    },
    abortMp3: ({ id }: { id: number }) => {
      streams.delete(id);
    },
    wav: ({ samples, sampleRate }: { samples: Float32Array; sampleRate: number }) => bytes(encodeWav({ samples, sampleRate })),
  };
});
