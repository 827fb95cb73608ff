/**
 * The long-form decoder's model (WindowsModel) with each unit of model work run as a step of the
 * call's turn on the worker's queue (CallContext.step, fair-queue.ts): a window's log-mel
 * features, its encoder run, one decode at one temperature (or one lockstep batch of VAD
 * windows), one word-alignment pass. Between two units another key's request may take the thread,
 * so a transcription that costs minutes (long audio, beam search, every fallback) holds the model
 * for one unit at a time. The decoders themselves are unchanged: this is the seam between units.
 */
import type { WindowsModel } from './decode-windows.js';

type Step = <T>(unit: () => Promise<T> | T) => Promise<T>;

export function whisperInSteps(model: WindowsModel, step: Step): WindowsModel {
  const { decoder, aligner } = model;
  const { decodeBatch } = decoder;
  return {
    ...model,
    features: (pcm) => step(() => model.features(pcm)),
    decoder: {
      encode: (features, signal) => step(() => decoder.encode(features, signal)),
      decode: (request) => step(() => decoder.decode(request)),
      ...(decodeBatch && { decodeBatch: (requests, onDecoded) => step(() => decodeBatch.call(decoder, requests, onDecoded)) }),
    },
    aligner: aligner && {
      ...aligner,
      decoder: { crossAttention: (audio, tokens, heads) => step(() => aligner.decoder.crossAttention(audio, tokens, heads)) },
    },
  };
}
