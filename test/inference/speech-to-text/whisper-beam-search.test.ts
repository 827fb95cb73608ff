/**
 * openai/whisper's beam search and ranker (whisper-beam-search.ts) over hand-made log
 * probabilities: which candidates go on, when a search is done, what finalize tops up with,
 * and how the length penalty ranks.
 */
import { expect } from 'chai';
import { BeamSearch, bestHypothesis, topCandidates, type Hypothesis } from '../../../src/inference/speech-to-text/decoding/whisper-beam-search.js';
import { logSumExp } from '../../../src/inference/speech-to-text/decoding/whisper-token-choice.js';

const EOT = 9;
const beam = (tokens: number[], sumLogProb: number): Hypothesis => ({
  tokens,
  tokenLogProbs: tokens.map(() => sumLogProb / Math.max(1, tokens.length)),
  sumLogProb,
});
const c = (token: number, logProb: number) => ({ token, logProb });

describe('BeamSearch (openai/whisper BeamSearchDecoder)', () => {
  it('keeps the best beamSize candidates that do not end, from one beam at the first step', () => {
    const search = new BeamSearch(2, EOT);
    const step = search.step([beam([], 0)], [[c(1, -0.1), c(2, -0.5), c(3, -2)]]);
    expect(step.beams.map((b) => b.tokens)).to.deep.equal([[1], [2]]);
    expect(step.sources).to.deep.equal([0, 0]);
    expect(step.beams[1]!.sumLogProb).to.equal(-0.5);
    expect(step.beams[1]!.tokenLogProbs).to.deep.equal([-0.5]);
    expect(step.done).to.equal(false);
  });

  it('moves candidates ending in eot to the finished list, and is done with round(beamSize × patience) of them', () => {
    const search = new BeamSearch(2, EOT, 1);
    const beams = [beam([1], -0.1), beam([2], -0.5)];
    // Beam 0's eot is the best candidate: it finishes, and the next two go on.
    const first = search.step(beams, [
      [c(EOT, -0.1), c(4, -1)],
      [c(5, -0.2), c(EOT, -3)],
    ]);
    expect(first.beams.map((b) => b.tokens)).to.deep.equal([
      [2, 5],
      [1, 4],
    ]);
    expect(first.sources).to.deep.equal([1, 0]);
    expect(first.done).to.equal(false);
    const second = search.step(first.beams, [
      [c(EOT, -0.1), c(6, -0.2)],
      [c(7, -0.1), c(EOT, -0.3)],
    ]);
    expect(second.done).to.equal(true);
    const finished = search.finalize(second.beams);
    expect(finished.map((h) => h.tokens)).to.deep.equal([[1], [2, 5]]);
    expect(finished[0]!.sumLogProb).to.be.closeTo(-0.2, 1e-9); // eot's log probability counted
  });

  it('with patience 2 waits for twice as many finished; Python rounding (round half to even)', () => {
    expect(() => new BeamSearch(1, EOT, 0.5)).to.throw(RangeError); // round(0.5) = 0
    const search = new BeamSearch(1, EOT, 2);
    let beams = [beam([1], -0.1)];
    const done: boolean[] = [];
    for (let i = 0; i < 3; i++) {
      const step = search.step(beams, [[c(EOT, -0.2), c(2 + i, -0.3)]]);
      done.push(step.done);
      beams = step.beams;
    }
    expect(done).to.deep.equal([false, true, true]);
  });

  it('finalize tops up with the likeliest unfinished beams when too few finished (max length reached)', () => {
    const search = new BeamSearch(3, EOT);
    const beams = [beam([1, 2], -2), beam([1, 3], -1), beam([4], -3)];
    expect(search.finalize(beams).map((h) => h.tokens)).to.deep.equal([[1, 3], [1, 2], [4]]);
  });
});

describe('bestHypothesis (MaximumLikelihoodRanker)', () => {
  const short = beam([1, 2], -1); // -0.5 a token
  const long = beam([1, 2, 3, 4, 5, 6], -2.4); // -0.4 a token
  it('divides by the length by default: the longer, likelier per token, wins', () => {
    expect(bestHypothesis([short, long])).to.equal(long);
  });

  it("uses Google NMT's ((5 + length) / 6) ^ alpha with a length penalty (alpha 0: the plain sum)", () => {
    expect(bestHypothesis([short, long], 0)).to.equal(short);
    // alpha 1: -1 / (7/6) = -0.857 vs -2.4 / (11/6) = -1.309
    expect(bestHypothesis([short, long], 1)).to.equal(short);
  });
});

describe('topCandidates and logSumExp', () => {
  it('gives the k likeliest as log probabilities, skipping suppressed tokens', () => {
    const logits = Float32Array.from([1, 5, -Infinity, 3, 5, 0]);
    const top = topCandidates(logits, 3);
    expect(top.map((candidate) => candidate.token)).to.deep.equal([1, 4, 3]);
    const norm = Math.log(Math.exp(1) + 2 * Math.exp(5) + Math.exp(3) + 1);
    expect(top[0]!.logProb).to.be.closeTo(5 - norm, 1e-6);
    expect(topCandidates(Float32Array.from([0, -Infinity]), 3)).to.have.length(1);
  });

  it('logSumExp matches Math.exp to 1e-6 over a vocabulary of logits', () => {
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const logits = Float32Array.from({ length: 51_865 }, () => random() * 40 - 20);
    logits[10] = -Infinity;
    let max = -Infinity;
    for (const value of logits) max = Math.max(max, value);
    let sum = 0;
    for (const value of logits) sum += Math.exp(value - max);
    expect(logSumExp(logits)).to.be.closeTo(max + Math.log(sum), 1e-6);
  });
});
