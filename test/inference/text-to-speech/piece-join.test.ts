import { expect } from 'chai';
import { fadeJoins, peakOf, SentenceLevel } from '../../../src/inference/text-to-speech/piece-join.js';

const constant = (value: number, length = 1000) => new Float32Array(length).fill(value);

describe('piece-join', () => {
  describe('SentenceLevel', () => {
    it('scales a sentence of its own to full scale', () => {
      expect(peakOf(new SentenceLevel().apply(Float32Array.of(0.1, -0.25, 0.2), false))).to.be.closeTo(1, 1e-6);
    });

    it('gives a piece continuing a cut sentence the gain of its first piece', () => {
      const level = new SentenceLevel();
      level.apply(constant(0.5), false);
      expect(peakOf(level.apply(constant(0.25), true))).to.be.closeTo(0.5, 1e-6);
    });

    it('never pushes a continuing piece past full scale', () => {
      const level = new SentenceLevel();
      level.apply(constant(0.25), false);
      expect(peakOf(level.apply(constant(0.5), true))).to.be.closeTo(1, 1e-6);
    });

    it('starts over at a new sentence, and leaves silence silent', () => {
      const level = new SentenceLevel();
      level.apply(constant(0.5), false);
      expect(peakOf(level.apply(constant(0.1), false))).to.be.closeTo(1, 1e-6);
      expect(peakOf(level.apply(constant(0), true))).to.equal(0);
    });
  });

  describe('fadeJoins', () => {
    it('fades only the edges it is asked to, over a few milliseconds', () => {
      const samples = fadeJoins(constant(1, 16000), 16000, { fadeIn: true, fadeOut: false });
      expect(samples[0]).to.be.lessThan(0.05);
      expect(samples[100]).to.equal(1);
      expect(samples[15999]).to.equal(1);
      const both = fadeJoins(constant(1, 16000), 16000, { fadeIn: true, fadeOut: true });
      expect(both[15999]).to.be.lessThan(0.05);
      expect(both[8000]).to.equal(1);
    });

    it('handles pieces shorter than two fades', () => {
      expect([...fadeJoins(constant(1, 3), 16000, { fadeIn: true, fadeOut: true })].every((value) => value > 0 && value <= 1)).to.equal(true);
    });
  });
});
