/**
 * Searches (beam search, best-of) of several windows, each with its own search state
 * (decodeSearch) and results as alone, their rows read by one decoder run per step on a session
 * whose cross-attention is grouped by window (graph/grouped-cross-attention.ts): the windows'
 * start tokens on one row each, then every window's beams or samples in one batch
 * (SearchBatchRows). What a step costs besides the cross-attention (the weights, the output
 * projection over the whole vocabulary) is then paid once for all the windows
 * (docs/benchmarks.md, "Speech to text").
 */
import { decodeSearch, type SearchResult } from '../decoding/whisper-search-decode.js';
import type { WindowDecodeRequest } from '../decoding/window-decode-request.js';
import type { SearchBatchFits } from '../long-form/whisper-batch-size.js';
import { stackRows } from './cache-rows.js';
import { ortTensorOf, type DecoderPasses, type WhisperDecoderSession } from './decoder-passes.js';
import { SearchBatchRows } from './search-batch-rows.js';
import { SearchStepsTogether } from './search-steps-together.js';

/** Searches of windows whose prompts and start tokens have equal lengths, stepping together on `session`. */
export async function searchTogether(
  passes: DecoderPasses,
  requests: readonly WindowDecodeRequest[],
  session: WhisperDecoderSession,
  onDecoded: (position: number, result: SearchResult) => void,
): Promise<void> {
  let rows: SearchBatchRows | undefined;
  const together = new SearchStepsTogether(requests.length, async (steps) => {
    const input = rows!.next(steps);
    const step = await passes.extend(
      input.audio,
      input.tokens.map((token) => [token]),
      input.past,
      true,
      session,
    );
    return rows!.split(step.logits!);
  });
  const started = (async () => {
    const audio = stackRows(requests.map((request) => ortTensorOf(request.audioFeatures)));
    const start = await passes.readStart(audio, requests, session);
    rows = new SearchBatchRows(start.cache, audio);
    return start.logits;
  })();
  const searches = requests.map(async (request, group) => {
    const result = await together.search(group, (step) =>
      decodeSearch(request, passes.tokens, {
        start: async () => {
          const logits = await started;
          const [, steps, vocab] = logits.dims as [number, number, number];
          const at = (group * steps + steps - 1) * vocab;
          return { logits: (logits.data as Float32Array).subarray(at, at + vocab), noSpeechProb: passes.noSpeechProb(logits, group, request) };
        },
        step,
      }),
    );
    onDecoded(group, result);
  });
  const settled = await Promise.allSettled(searches);
  const failure = settled.find((one) => one.status === 'rejected');
  if (failure) throw failure.reason;
}

/**
 * Searched windows (`[index, rows]`, in order) in batches `fits` allows, so that a run of
 * searches together never holds more: every window of a batch holds as many rows as its largest
 * (SearchBatchRows pads), so a batch is its windows times that. A window alone is decoded alone,
 * whatever the bound.
 */
export function searchBatches(windows: readonly (readonly [number, number])[], fits: SearchBatchFits): number[][] {
  const batches: number[][] = [];
  let widest = 0;
  for (const [index, windowRows] of windows) {
    const batch = batches.at(-1);
    const wider = Math.max(widest, windowRows);
    if (batch && fits(batch.length + 1, wider)) {
      batch.push(index);
      widest = wider;
    } else {
      batches.push([index]);
      widest = windowRows;
    }
  }
  return batches;
}
