/**
 * One window decoded as a group of rows, as openai/whisper's DecodingTask does when it is asked
 * for more than one hypothesis: at temperature 0 a beam search over `beamSize` beams
 * (whisper-beam-search.ts), above 0 `bestOf` independent samples; the likeliest by the
 * MaximumLikelihoodRanker is the window's result. Every row keeps the timestamp rules and
 * suppressed tokens of the greedy decode, and each token's log probability.
 *
 * The rows share the window's audio and prompt, which are read once on one row; the decoder then
 * grows that row's key/value cache to the group and, between steps, reorders it to the beams'
 * sources (SearchSession, implemented over the ONNX sessions by WhisperWindowDecoder).
 */
import { BeamSearch, bestHypothesis, topCandidates, type Hypothesis } from './whisper-beam-search.js';
import type { WhisperSpecialTokens } from './whisper-special-tokens.js';
import { applyTimestampRules } from './whisper-timestamp-rules.js';
import { logSoftmaxAt, sample } from './whisper-token-choice.js';
import type { WindowDecodeRequest } from './window-decode-request.js';

/** How many hypotheses a window's decode weighs (openai/faster-whisper's beam_size, best_of, patience, length_penalty). */
export interface SearchOptions {
  /** Beams at temperature 0 (1: greedy). */
  beamSize?: number;
  /** Samples at a temperature above 0 (1: one). */
  bestOf?: number;
  /** Finished beams wanted before stopping, as a multiple of beamSize (default 1). */
  patience?: number;
  /** Google NMT's length penalty alpha, 0 to 1; undefined: divide by the length (openai's default). */
  lengthPenalty?: number;
}

/** The request fields a search reads. */
export type SearchRequest = Pick<WindowDecodeRequest, 'temperature' | 'maxTokens' | 'maxInitialTimestampIndex' | 'signal' | 'random' | 'search'>;

export interface SearchResult extends Hypothesis {
  avgLogProb: number;
  noSpeechProb: number;
}

/** The decoder's side: one window's key/value cache, grown and reordered as rows come and go. */
export interface SearchSession {
  /** Reads the prompt and start tokens on one row: the last start token's logits, and `<|nospeech|>`'s probability. */
  start(): Promise<{ logits: Float32Array; noSpeechProb: number }>;
  /**
   * Makes row `i` of the cache a copy of the current row `sources[i]` (rows may repeat or be
   * dropped), then reads `tokens[i]` on it: each row's next logits.
   */
  step(sources: readonly number[], tokens: readonly number[]): Promise<Float32Array[]>;
}

/** Rows a request's window is decoded with: 1 means the plain (greedy or single-sample) decode. */
export function searchRows(request: Pick<SearchRequest, 'temperature' | 'search'>): number {
  return (request.temperature > 0 ? request.search?.bestOf : request.search?.beamSize) ?? 1;
}

export async function decodeSearch(request: SearchRequest, tokens: WhisperSpecialTokens, session: SearchSession): Promise<SearchResult> {
  const rows = searchRows(request);
  const first = await session.start();
  const best =
    request.temperature > 0 ? await sampleBestOf(request, tokens, session, first.logits, rows) : await beamSearch(request, tokens, session, first.logits, rows);
  return { ...best, avgLogProb: best.sumLogProb / (best.tokens.length + 1), noSpeechProb: first.noSpeechProb };
}

function filter(logits: Float32Array, sampled: readonly number[], tokens: WhisperSpecialTokens, request: SearchRequest): Float32Array {
  applyTimestampRules(logits, sampled, tokens, { maxInitialTimestampIndex: request.maxInitialTimestampIndex });
  return logits;
}

async function beamSearch(
  request: SearchRequest,
  tokens: WhisperSpecialTokens,
  session: SearchSession,
  firstLogits: Float32Array,
  beamSize: number,
): Promise<Hypothesis> {
  const search = new BeamSearch(beamSize, tokens.eot, request.search?.patience);
  let beams: Hypothesis[] = [{ tokens: [], tokenLogProbs: [], sumLogProb: 0 }];
  let logits = [firstLogits];
  for (let step = 1; ; step++) {
    request.signal.throwIfAborted();
    const candidates = beams.map((beam, row) => topCandidates(filter(logits[row]!, beam.tokens, tokens, request), beamSize + 1));
    const next = search.step(beams, candidates);
    beams = next.beams;
    // openai stops after sample_len steps, the unfinished beams then ranked with the finished.
    if (next.done || beams.length === 0 || step >= request.maxTokens) break;
    logits = await session.step(
      next.sources,
      beams.map((beam) => beam.tokens.at(-1)!),
    );
  }
  return bestHypothesis(search.finalize(beams), request.search?.lengthPenalty);
}

/**
 * `count` samples drawn side by side; a row that samples `eot` (or reaches maxTokens) leaves the
 * group. As openai: each token drawn at the temperature, its log probability taken unscaled.
 */
async function sampleBestOf(
  request: SearchRequest,
  tokens: WhisperSpecialTokens,
  session: SearchSession,
  firstLogits: Float32Array,
  count: number,
): Promise<Hypothesis> {
  const random = request.random ?? Math.random;
  const samples: Hypothesis[] = Array.from({ length: count }, () => ({ tokens: [], tokenLogProbs: [], sumLogProb: 0 }));
  // Every row starts from the same filtered logits.
  const shared = filter(firstLogits, [], tokens, request);
  let live = samples.map((_, index) => index);
  let logits = live.map(() => shared);
  // The cache row each live sample reads on: at first the one row of the start tokens for all.
  let cacheRows = live.map(() => 0);
  for (;;) {
    request.signal.throwIfAborted();
    const sources: number[] = [];
    const next: number[] = [];
    live.forEach((index, row) => {
      const hypothesis = samples[index]!;
      const rowLogits = logits[row]!;
      if (rowLogits !== shared) filter(rowLogits, hypothesis.tokens, tokens, request);
      const token = sample(rowLogits, request.temperature, random);
      const logProb = logSoftmaxAt(rowLogits, token);
      hypothesis.sumLogProb += logProb;
      if (token === tokens.eot) return;
      hypothesis.tokens.push(token);
      hypothesis.tokenLogProbs.push(logProb);
      if (hypothesis.tokens.length >= request.maxTokens) return;
      sources.push(row);
      next.push(token);
    });
    if (sources.length === 0) break;
    live = sources.map((row) => live[row]!);
    logits = await session.step(
      sources.map((row) => cacheRows[row]!),
      next,
    );
    cacheRows = sources.map((_, row) => row);
  }
  return bestHypothesis(samples, request.search?.lengthPenalty);
}
