/**
 * Independent windows decoded side by side, their decoder steps batched (decode-batcher.ts):
 * `concurrency` windows are in flight at once, the next one starting as soon as one ends, so at
 * most that many windows' audio, features and encoder output are held. Each window runs exactly
 * what it would run alone (decodeOne), including its follow-up decodes; only the decoder is
 * shared. Segments reach `onSegments` in window order: a window's are held until every window
 * before it is done. On a failure (an abort among them) no new window starts, and the call
 * returns only once every window in flight has stopped.
 */
import { DecodeBatcher } from './decode-batcher.js';
import type { DecodedSegment } from './long-form-decoder.js';
import type { WhisperWindowDecoder } from '../decoder/whisper-window-decoder.js';
import type { WindowDecodeRequest, WindowDecodeResult } from '../decoding/window-decode-request.js';

export interface WindowsTogetherOptions {
  /**
   * Windows in flight at once (whisperBatchSize); a greedy batch holds at most this many rows, and
   * beam searches or best-of samples the decoder's own bound (WhisperWindowDecoder's fitsSearchBatch).
   */
  concurrency: number;
  onSegments?: (segments: DecodedSegment[]) => void;
}

/** What each window's decode is given: the shared decoder to ask, and where its segments go. */
export interface WindowTurn {
  decode(request: WindowDecodeRequest): Promise<WindowDecodeResult>;
  report(segments: DecodedSegment[]): void;
}

/** `decodeOne(index, turn)`: window `index`'s segments; the result is in window order. */
export async function decodeWindowsTogether(
  count: number,
  decoder: Pick<WhisperWindowDecoder, 'decodeBatch'>,
  decodeOne: (index: number, turn: WindowTurn) => Promise<DecodedSegment[]>,
  options: WindowsTogetherOptions,
): Promise<DecodedSegment[][]> {
  const batcher = new DecodeBatcher(decoder);
  const inOrder = new InOrderReports(count, options.onSegments);
  const results: DecodedSegment[][] = new Array(count);
  const decode = (request: WindowDecodeRequest) => batcher.decode(request);
  let next = 0;
  let stopped = false;
  // Each lane stays joined from one window to the next, so a batch waits for the lane's next
  // window (its features and encoder run) instead of starting a row short.
  const lane = () =>
    batcher.join(async () => {
      while (next < count && !stopped) {
        const index = next++;
        try {
          results[index] = await decodeOne(index, { decode, report: (segments) => inOrder.report(index, segments) });
        } catch (error) {
          stopped = true;
          throw error;
        }
        inOrder.finish(index);
      }
    });
  const lanes = await Promise.allSettled(Array.from({ length: Math.max(1, Math.min(options.concurrency, count)) }, lane));
  const failure = lanes.find((settled) => settled.status === 'rejected');
  if (failure) throw failure.reason;
  return results;
}

/** Passes segments on in window order: the first unfinished window's at once, later ones' when their turn comes. */
class InOrderReports {
  readonly #held: DecodedSegment[][][];
  readonly #done: boolean[];
  readonly #onSegments: ((segments: DecodedSegment[]) => void) | undefined;
  #head = 0;

  constructor(count: number, onSegments: ((segments: DecodedSegment[]) => void) | undefined) {
    this.#held = Array.from({ length: count }, () => []);
    this.#done = new Array(count).fill(false);
    this.#onSegments = onSegments;
  }

  report(index: number, segments: DecodedSegment[]): void {
    if (index === this.#head) this.#onSegments?.(segments);
    else this.#held[index]!.push(segments);
  }

  finish(index: number): void {
    this.#done[index] = true;
    while (this.#head < this.#done.length && this.#done[this.#head]) {
      this.#head++;
      const held = this.#held[this.#head];
      if (!held) continue;
      this.#held[this.#head] = [];
      for (const segments of held) this.#onSegments?.(segments);
    }
  }
}
