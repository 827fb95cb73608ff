/**
 * Main-thread handle on the token-decoder worker: OpenAI token ids → texts, off the event loop.
 * The thread starts with the first request that sends ids and stops after a quiet minute, taking
 * the encoding's tables with it; servers whose clients send text never start it.
 */
import { ModelWorker } from '../worker/model-worker.js';
import { TOKEN_DECODER_WORKER, type DecodeResult, type TokenDecoderApi } from './token-decoder-protocol.js';
import type { TokenEncoding } from './token-encodings.js';

const IDLE_STOP_MS = 60_000;

export interface DecodeOptions {
  /** See DecodeRequest.maxCharacters. */
  maxCharacters: number;
  signal?: AbortSignal;
}

export class TokenDecoder {
  readonly #worker: ModelWorker<TokenDecoderApi>;

  constructor(options: { idleStopMs?: number } = {}) {
    this.#worker = ModelWorker.create(TOKEN_DECODER_WORKER, {
      init: undefined,
      modelId: 'token-decoder',
      name: 'token-decoder',
      idleStopMs: options.idleStopMs ?? IDLE_STOP_MS,
    });
  }

  /** `inputs` are token ids the caller has checked are integers from 0 to 2^31 - 1. */
  decode(encoding: TokenEncoding, inputs: readonly (readonly number[])[], options: DecodeOptions): Promise<DecodeResult> {
    const ends = new Uint32Array(inputs.length);
    let total = 0;
    inputs.forEach((input, index) => (ends[index] = total += input.length));
    const ids = new Int32Array(total);
    let at = 0;
    for (const input of inputs) {
      ids.set(input, at);
      at += input.length;
    }
    const request = { encoding, ids, ends, maxCharacters: options.maxCharacters };
    return this.#worker.call('decode', request, { transfer: [ids.buffer, ends.buffer], signal: options.signal });
  }

  dispose(): Promise<void> {
    return this.#worker.dispose();
  }
}
