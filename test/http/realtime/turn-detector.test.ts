import { expect } from 'chai';
import fc from 'fast-check';
import { TurnDetector } from '../../../src/http/realtime/turn-detector.js';
import { fuzzRuns } from '../../helpers/fuzz-runs.js';

const settings = { threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 96 };
const frames = (...runs: [number, number][]) => runs.flatMap(([p, n]) => Array<number>(n).fill(p));

describe('TurnDetector (server VAD turns)', () => {
  it('starts a turn at the first frame over the threshold and ends it after the silence duration', () => {
    const detector = new TurnDetector(settings, { frameMs: 32, maxTurnMs: 30_000 });
    const events = detector.push(frames([0.1, 5], [0.9, 10], [0.05, 3], [0.1, 2]), 0);
    // Speech from frame 5 (160 ms); silence from frame 15 (480 ms) lasts 96 ms at the end of frame 17.
    expect(events).to.deep.equal([
      { type: 'speech_started', atMs: 160 },
      { type: 'speech_stopped', atMs: 576 },
    ]);
    expect(detector.speaking).to.equal(false);
  });

  it('does not end a turn on frames between the two thresholds (hysteresis)', () => {
    const detector = new TurnDetector(settings, { frameMs: 32, maxTurnMs: 30_000 });
    expect(detector.push(frames([0.9, 2], [0.4, 20]), 0)).to.deep.equal([{ type: 'speech_started', atMs: 0 }]);
    expect(detector.speaking).to.equal(true);
  });

  it('cuts a turn that reaches the longest allowed', () => {
    const detector = new TurnDetector(settings, { frameMs: 32, maxTurnMs: 320 });
    expect(detector.push(frames([0.9, 12]), 0)).to.deep.equal([
      { type: 'speech_started', atMs: 0 },
      { type: 'speech_stopped', atMs: 320 },
      { type: 'speech_started', atMs: 320 },
    ]);
  });

  it('gives the same events however the probabilities are split into pushes, alternating start and stop (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.float({ min: 0, max: 1, noNaN: true }), { maxLength: 300 }), fc.array(fc.nat(20), { maxLength: 30 }), (probabilities, cuts) => {
        const whole = new TurnDetector(settings, { frameMs: 32, maxTurnMs: 1_000 }).push(probabilities, 0);
        const split = new TurnDetector(settings, { frameMs: 32, maxTurnMs: 1_000 });
        const events = [];
        let at = 0;
        for (const cut of cuts) {
          events.push(...split.push(probabilities.slice(at, at + cut), at * 32));
          at += cut;
        }
        events.push(...split.push(probabilities.slice(at), at * 32));
        expect(events).to.deep.equal(whole);
        whole.forEach((event, i) => expect(event.type).to.equal(i % 2 === 0 ? 'speech_started' : 'speech_stopped'));
      }),
      { numRuns: fuzzRuns(200) },
    );
  });

  it('reports the stream times it is given, so a detector made mid-stream goes on from there', () => {
    const detector = new TurnDetector(settings, { frameMs: 32, maxTurnMs: 30_000 });
    expect(detector.push(frames([0.9, 1]), 3_200)).to.deep.equal([{ type: 'speech_started', atMs: 3_200 }]);
    expect(detector.push(frames([0.9, 1], [0.05, 3]), 3_232)).to.deep.equal([{ type: 'speech_stopped', atMs: 3_360 }]);
  });
});
