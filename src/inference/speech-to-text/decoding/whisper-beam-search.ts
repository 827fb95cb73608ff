/**
 * openai/whisper's BeamSearchDecoder and MaximumLikelihoodRanker (whisper/decoding.py), over
 * plain arrays: each step every beam offers its `beamSize + 1` likeliest next tokens, the best
 * `beamSize` candidates that do not end the text go on, and those ending it (`eot`) are kept as
 * finished until `round(beamSize × patience)` have been. The ranker then picks among the finished
 * (and, when too few finished, the best unfinished) by sum log probability over a length penalty.
 */
import { logSumExp } from './whisper-token-choice.js';

/** A sequence a beam holds, or one that finished. */
export interface Hypothesis {
  /** Sampled tokens, without `eot`. */
  tokens: number[];
  /** Each token's log probability, aligned with `tokens`. */
  tokenLogProbs: number[];
  /** Sum of the log probabilities, the final `eot`'s included once finished. */
  sumLogProb: number;
}

/** A beam's next token as one step's logits offer it. */
export interface Candidate {
  token: number;
  logProb: number;
}

/** The beams after a step: `sources[i]` is the beam (row) `beams[i]` grew from. */
export interface BeamStep {
  beams: Hypothesis[];
  sources: number[];
  /** Enough hypotheses have finished: stop decoding. */
  done: boolean;
}

/** Python's round(): halves go to the even neighbour (openai's max_candidates = round(beam_size * patience)). */
function roundHalfEven(value: number): number {
  const floor = Math.floor(value);
  const rest = value - floor;
  if (rest !== 0.5) return Math.round(value);
  return floor % 2 === 0 ? floor : floor + 1;
}

export class BeamSearch {
  readonly beamSize: number;
  readonly #eot: number;
  /** Finished hypotheses wanted before stopping (openai: round(beam_size × patience)). */
  readonly #maxCandidates: number;
  readonly #finished: Hypothesis[] = [];

  constructor(beamSize: number, eot: number, patience = 1) {
    this.beamSize = beamSize;
    this.#eot = eot;
    this.#maxCandidates = roundHalfEven(beamSize * patience);
    if (this.#maxCandidates < 1) throw new RangeError(`beam size ${beamSize} × patience ${patience} rounds to no candidate`);
  }

  /**
   * One step: `candidates[row]` are beam `row`'s likeliest next tokens. The first step has one
   * beam (the prompt), not beamSize copies of it as openai's, which then drops the duplicates: the
   * same candidates. Later beams hold distinct sequences, so their candidates are distinct too.
   */
  step(beams: readonly Hypothesis[], candidates: readonly (readonly Candidate[])[]): BeamStep {
    const scored: Array<{ source: number; token: number; logProb: number; score: number }> = [];
    beams.forEach((beam, source) => {
      for (const { token, logProb } of candidates[source]!) scored.push({ source, token, logProb, score: beam.sumLogProb + logProb });
    });
    // Stable: equal scores keep the beams' order, as Python's sorted() does.
    scored.sort((a, b) => b.score - a.score);
    const next: Hypothesis[] = [];
    const sources: number[] = [];
    const finished: Hypothesis[] = [];
    for (const candidate of scored) {
      const beam = beams[candidate.source]!;
      if (candidate.token === this.#eot) {
        finished.push({ tokens: beam.tokens, tokenLogProbs: beam.tokenLogProbs, sumLogProb: candidate.score });
        continue;
      }
      next.push({ tokens: [...beam.tokens, candidate.token], tokenLogProbs: [...beam.tokenLogProbs, candidate.logProb], sumLogProb: candidate.score });
      sources.push(candidate.source);
      if (next.length === this.beamSize) break;
    }
    // Newly finished, best first, until the list is full.
    for (const hypothesis of finished) {
      if (this.#finished.length >= this.#maxCandidates) break;
      this.#finished.push(hypothesis);
    }
    return { beams: next, sources, done: this.#finished.length >= this.#maxCandidates };
  }

  /** The finished hypotheses, topped up with the best of `beams` (unfinished) while fewer than beamSize. */
  finalize(beams: readonly Hypothesis[]): Hypothesis[] {
    const all = [...this.#finished];
    const unfinished = [...beams].sort((a, b) => b.sumLogProb - a.sumLogProb);
    for (const beam of unfinished) {
      if (all.length >= this.beamSize) break;
      all.push(beam);
    }
    return all;
  }
}

/**
 * The likeliest hypothesis by openai's MaximumLikelihoodRanker: sum log probability over the
 * length (`lengthPenalty` undefined) or over Google NMT's ((5 + length) / 6) ^ lengthPenalty.
 * Ties go to the first.
 */
export function bestHypothesis<T extends Hypothesis>(hypotheses: readonly T[], lengthPenalty?: number): T {
  const score = (hypothesis: Hypothesis) => {
    const length = hypothesis.tokens.length;
    const penalty = lengthPenalty === undefined ? length : ((5 + length) / 6) ** lengthPenalty;
    return hypothesis.sumLogProb / penalty;
  };
  let best = hypotheses[0]!;
  let bestScore = score(best);
  for (const hypothesis of hypotheses.slice(1)) {
    const value = score(hypothesis);
    if (value > bestScore) {
      best = hypothesis;
      bestScore = value;
    }
  }
  return best;
}

/**
 * The `k` likeliest tokens of one step's (filtered) logits, as log probabilities, likeliest
 * first (ties: the lower token first); tokens at -Infinity are never offered.
 */
export function topCandidates(logits: Float32Array, k: number): Candidate[] {
  // A small sorted list in typed arrays (k is at most 11 against a vocabulary of 51,865): most
  // tokens cost one comparison with the k-th best so far.
  const tokens = new Int32Array(k).fill(-1);
  const values = new Float64Array(k).fill(-Infinity);
  let floor = -Infinity;
  for (let token = 0; token < logits.length; token++) {
    const value = logits[token]!;
    if (value <= floor) continue;
    let at = k - 1;
    while (at > 0 && values[at - 1]! < value) {
      values[at] = values[at - 1]!;
      tokens[at] = tokens[at - 1]!;
      at--;
    }
    values[at] = value;
    tokens[at] = token;
    floor = values[k - 1]!;
  }
  // The likeliest is the maximum: the normaliser needs one more pass, not two.
  const logNorm = logSumExp(logits, values[0]!);
  const best: Candidate[] = [];
  for (let at = 0; at < k && tokens[at]! >= 0; at++) best.push({ token: tokens[at]!, logProb: values[at]! - logNorm });
  return best;
}
