/**
 * The one-row decode and the greedy batch: windows whose prompts and start tokens have the same
 * lengths decoded one step at a time together, each row with its own timestamp rules, temperature
 * and end. The exported decoder has no attention mask or position ids: a row's positions are the
 * cache length, the same for every row. So rows are batched only with rows of equal lengths (no
 * padding), and a row that ends leaves the batch (its cache rows are dropped) rather than being masked.
 */
import type { OrtTensor } from '../../ort-tensor.js';
import { applyTimestampRules } from '../decoding/whisper-timestamp-rules.js';
import { argmax, logSoftmaxAt, sample } from '../decoding/whisper-token-choice.js';
import type { WindowDecodeRequest, WindowDecodeResult } from '../decoding/window-decode-request.js';
import { gatherRows, stackRows } from './cache-rows.js';
import { ortTensorOf, type DecoderPasses, type WhisperDecoderSession } from './decoder-passes.js';

/** One window of a lockstep batch and what its decode has produced so far. */
interface BatchRow {
  /** Its place in the batch's requests. */
  position: number;
  request: WindowDecodeRequest;
  random: () => number;
  sampled: number[];
  /** Each sampled token's log probability (include[]=logprobs). */
  tokenLogProbs: number[];
  sumLogProb: number;
  noSpeechProb: number;
}

/**
 * Requests whose prompts and start tokens have the same lengths, decoded one step at a time
 * together on `session`; `onDecoded(position, result)` as each row ends.
 */
export async function decodeLockstep(
  passes: DecoderPasses,
  requests: readonly WindowDecodeRequest[],
  session: WhisperDecoderSession,
  onDecoded?: (position: number, result: WindowDecodeResult) => void,
): Promise<WindowDecodeResult[]> {
  const { eot } = passes.tokens;
  let audio: OrtTensor = stackRows(requests.map((request) => ortTensorOf(request.audioFeatures)));
  const start = await passes.readStart(audio, requests, session);
  const past = start.cache;
  let logits = start.logits;
  const vocab = logits.dims[2]!;
  const rows: BatchRow[] = requests.map((request, row) => ({
    position: row,
    request,
    random: request.random ?? Math.random,
    sampled: [],
    tokenLogProbs: [],
    sumLogProb: 0,
    noSpeechProb: passes.noSpeechProb(logits, row, request),
  }));
  let live = rows;
  for (;;) {
    const steps = logits.dims[1]!;
    const data = logits.data as Float32Array;
    /** Positions in the batch of the rows that go on, and their next tokens. */
    const keep: number[] = [];
    const next: number[][] = [];
    live.forEach((row, position) => {
      row.request.signal.throwIfAborted();
      const at = (position * steps + steps - 1) * vocab;
      // In place: this step's logits are read once, here.
      const rowLogits = data.subarray(at, at + vocab);
      applyTimestampRules(rowLogits, row.sampled, passes.tokens, { maxInitialTimestampIndex: row.request.maxInitialTimestampIndex });
      const { temperature } = row.request;
      const token = temperature > 0 ? sample(rowLogits, temperature, row.random) : argmax(rowLogits);
      const logProb = logSoftmaxAt(rowLogits, token, temperature > 0 ? undefined : rowLogits[token]);
      row.sumLogProb += logProb;
      if (token === eot) return void onDecoded?.(row.position, resultOf(row));
      row.sampled.push(token);
      row.tokenLogProbs.push(logProb);
      if (row.sampled.length >= row.request.maxTokens) return void onDecoded?.(row.position, resultOf(row));
      keep.push(position);
      next.push([token]);
    });
    if (keep.length === 0) break;
    if (keep.length < live.length) {
      // Finished rows leave the batch (the decoder has no mask to skip them with): moving the
      // others' caches up costs less than the steps they would take along. Only a batch of two
      // or more gets here, whose audio was stacked into a buffer of its own.
      audio = gatherRows(audio, keep);
      for (const [name, tensor] of Object.entries(past.encoder)) past.encoder[name] = gatherRows(tensor, keep);
      past.selfAttention.past(keep);
      live = keep.map((position) => live[position]!);
    }
    const step = await passes.extend(audio, next, past, true, session);
    logits = step.logits!;
  }
  return rows.map(resultOf);
}

function resultOf(row: BatchRow): WindowDecodeResult {
  return {
    tokens: row.sampled,
    tokenLogProbs: row.tokenLogProbs,
    avgLogProb: row.sumLogProb / (row.sampled.length + 1),
    noSpeechProb: row.noSpeechProb,
  };
}
