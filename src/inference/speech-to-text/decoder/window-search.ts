/**
 * One window's rows for a beam search or best-of sampling (decoding/whisper-search-decode.ts runs
 * the search; this is its SearchSession over the ONNX session): the prompt and start tokens read on
 * one row, then its cache grown to the group and reordered at every step. The audio and the
 * cross-attention cache are the same on every row, so each step is given their one row, which
 * the decoder's attention broadcasts over the group's rows (its MatMuls broadcast the batch
 * axis): no copy per row, and a step reads a fifth of the cache a 5-row copy would have it read
 * (docs/benchmarks.md, "Speech to text"). A decoder whose graph does not broadcast (decided from
 * the graph at load: graph/cross-rows-support.ts) gets them repeated to the group's size once.
 */
import type { OrtTensor } from '../../ort-tensor.js';
import { searchRows, type SearchSession } from '../decoding/whisper-search-decode.js';
import type { WindowDecodeRequest } from '../decoding/window-decode-request.js';
import { SHARED_PREFIX } from '../graph/rewrite-contract.js';
import { alikeRows } from './cache-rows.js';
import { ortTensorOf, type Cache, type DecoderPasses, type WhisperDecoderSession } from './decoder-passes.js';
import type { SelfAttentionRows } from './self-attention-rows.js';

/** `broadcasts`: whether `session`'s attention takes one row of cross-attention cache for many (graph/cross-rows-support.ts). */
export function windowSearch(passes: DecoderPasses, request: WindowDecodeRequest, session: WhisperDecoderSession, broadcasts: boolean): SearchSession {
  const groupSize = searchRows(request);
  let audio = ortTensorOf(request.audioFeatures);
  /** The cross-attention cache (`.encoder`): one row, or the group's size once repeated. */
  let encoder: Cache = {};
  /** The self-attention cache, one row per live beam or sample. */
  let selfAttention: SelfAttentionRows | undefined;
  let repeated = false;
  const repeat = () => {
    audio = alikeRows(audio, groupSize);
    encoder = Object.fromEntries(Object.entries(encoder).map(([name, tensor]) => [name, alikeRows(tensor, groupSize)]));
    repeated = true;
  };
  const read = (tokens: readonly number[]) => {
    const crossRows = (tensor: OrtTensor) => (repeated ? alikeRows(tensor, tokens.length) : tensor);
    return passes.extend(
      crossRows(audio),
      tokens.map((token) => [token]),
      { encoder: Object.fromEntries(Object.entries(encoder).map(([name, tensor]) => [name, crossRows(tensor)])), selfAttention: selfAttention! },
      true,
      session,
    );
  };
  return {
    start: async () => {
      const start = await passes.readStart(audio, [request], session);
      ({ encoder, selfAttention } = start.cache);
      // Every beam or sample starts from the prompt and start tokens: a decoder that can read them once for all rows does.
      if (session.inputNames.some((name) => name.startsWith(SHARED_PREFIX))) selfAttention.share();
      const [, steps, vocab] = start.logits.dims as [number, number, number];
      const data = start.logits.data as Float32Array;
      return { logits: data.subarray((steps - 1) * vocab, steps * vocab), noSpeechProb: passes.noSpeechProb(start.logits, 0, request) };
    },
    step: async (sources, tokens) => {
      // The rows move once, before the run (a retried run reads them as they are).
      selfAttention!.past(sources);
      if (!broadcasts && !repeated && sources.length > 1) repeat();
      const step = await read(tokens);
      const data = step.logits!.data as Float32Array;
      const vocab = step.logits!.dims[2]!;
      return tokens.map((_, row) => data.subarray(row * vocab, (row + 1) * vocab));
    },
  };
}
