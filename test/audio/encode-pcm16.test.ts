import { expect } from 'chai';
import { Pcm16StreamEncoder } from '../../src/audio/encode-pcm16.js';
import { sine } from './audio-test-helpers.js';

const concat = (parts: Uint8Array[]) => Buffer.concat(parts.map((part) => Buffer.from(part)));

describe('Pcm16StreamEncoder (OpenAI pcm: 24 kHz, 16-bit LE)', () => {
  it('resamples to 24 kHz: 1.5 samples per 16-kHz sample, the same bytes in any chunking', () => {
    const tone = sine(440, 16_000, 1);
    const whole = new Pcm16StreamEncoder(16_000);
    const one = concat([whole.encode(tone), whole.finish()]);
    expect(one.length / 2).to.equal(24_000);
    const pieces = new Pcm16StreamEncoder(16_000);
    const parts = [pieces.encode(tone.subarray(0, 1234)), pieces.encode(tone.subarray(1234, 9000)), pieces.encode(tone.subarray(9000)), pieces.finish()];
    expect(concat(parts).equals(one)).to.equal(true);
  });

  it('writes little-endian signed samples, clamped, unchanged at 24 kHz', () => {
    const encoder = new Pcm16StreamEncoder(24_000);
    const bytes = Buffer.from(encoder.encode(Float32Array.from([0, 1, -1, 2, -2, 0.5])));
    expect([0, 1, 2, 3, 4, 5].map((i) => bytes.readInt16LE(i * 2))).to.deep.equal([0, 32767, -32768, 32767, -32768, 16384]);
    expect(encoder.finish().length).to.equal(0);
  });
});
