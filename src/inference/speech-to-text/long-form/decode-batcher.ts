/**
 * Gathers the window decodes of several concurrent long-form decodes (decodeLongForm over
 * independent VAD windows) into lockstep batches (WhisperWindowDecoder.decodeBatch). Each
 * decode runs its own loop unchanged and asks `decode` for one window; a batch starts once every
 * decode still running has asked, so a batch holds one decode of each (its first temperature or a
 * fallback, whichever it is at) and no decode waits on a batch it could have joined. A window
 * then gets the tokens it would get alone: decodeBatch decodes each row as `decode` would.
 */
import type { WhisperWindowDecoder } from '../decoder/whisper-window-decoder.js';
import type { WindowDecodeRequest, WindowDecodeResult } from '../decoding/window-decode-request.js';

interface Waiting {
  request: WindowDecodeRequest;
  resolve(result: WindowDecodeResult): void;
  reject(error: unknown): void;
}

export class DecodeBatcher {
  readonly #decoder: Pick<WhisperWindowDecoder, 'decodeBatch'>;
  /** Decodes that may still ask (joined, not ended). */
  #live = 0;
  #waiting: Waiting[] = [];
  #running = false;
  /** The first batch's failure (an abort, an onnxruntime error): every later ask fails with it. */
  #failure: { error: unknown } | undefined;

  constructor(decoder: Pick<WhisperWindowDecoder, 'decodeBatch'>) {
    this.#decoder = decoder;
  }

  /** Runs `work`, one of the decodes a batch waits for until it ends. */
  async join<T>(work: () => Promise<T>): Promise<T> {
    this.#live++;
    try {
      return await work();
    } finally {
      this.#live--;
      this.#startWhenAllWait();
    }
  }

  /** One window decode, answered when its batch is done (from within `join`). */
  decode(request: WindowDecodeRequest): Promise<WindowDecodeResult> {
    if (this.#failure) return Promise.reject(this.#failure.error);
    return new Promise((resolve, reject) => {
      this.#waiting.push({ request, resolve, reject });
      this.#startWhenAllWait();
    });
  }

  #startWhenAllWait(): void {
    if (this.#running || this.#waiting.length === 0 || this.#waiting.length < this.#live) return;
    const batch = this.#waiting;
    this.#waiting = [];
    this.#running = true;
    this.#decoder
      // Each decode is answered as soon as its row ends, so its window goes on (its next
      // window's features and encoder run) while the batch finishes the others.
      .decodeBatch(
        batch.map((waiting) => waiting.request),
        (index, result) => batch[index]!.resolve(result),
      )
      .then(
        (results) => batch.forEach((waiting, index) => waiting.resolve(results[index]!)),
        (error: unknown) => {
          this.#failure ??= { error };
          for (const waiting of batch) waiting.reject(error);
        },
      )
      .finally(() => {
        this.#running = false;
        this.#startWhenAllWait();
      });
  }
}
