import { expect } from 'chai';
import { floatReader, Pcm16Buffer } from '../../src/audio/pcm16-buffer.js';

const BLOCK = 1 << 20;

/** A ramp that crosses block boundaries and covers the whole 16-bit range. */
function ramp(length: number): Float32Array {
  return Float32Array.from({ length }, (_, i) => ((i % 65536) - 32768) / 32768);
}

describe('Pcm16Buffer', () => {
  it('reads back what was appended, in pieces of any size and across blocks', () => {
    const samples = ramp(BLOCK * 2 + 12_345);
    const pcm = new Pcm16Buffer();
    for (let from = 0; from < samples.length; from += 700_001) pcm.append(samples.subarray(from, from + 700_001));
    expect(pcm.length).to.equal(samples.length);
    for (const [start, end] of [
      [0, 10],
      [BLOCK - 5, BLOCK + 5],
      [BLOCK * 2 - 1, BLOCK * 2 + 12_345],
      [0, samples.length],
    ] as const) {
      const read = pcm.read(start, end);
      expect(read.length).to.equal(end - start);
      // The ramp is exactly representable in 16 bits.
      for (let i = 0; i < read.length; i++) if (read[i] !== samples[start + i]) expect.fail(`sample ${start + i}: ${read[i]} ≠ ${samples[start + i]}`);
    }
  });

  it('rounds to the nearest 16-bit step and clamps to [-1, 1) as FFmpeg s16 does', () => {
    const pcm = new Pcm16Buffer();
    pcm.append(Float32Array.of(0.3, -0.3, 1, -1, 2, -2, 1 / 65536 + 1e-9));
    expect(Array.from(pcm.read(0, 7), (x) => Math.round(x * 32768))).to.deep.equal([9830, -9830, 32767, -32768, 32767, -32768, 1]);
  });

  it('clips reads to its length', () => {
    const pcm = new Pcm16Buffer();
    pcm.append(new Float32Array(10).fill(0.5));
    expect(pcm.read(8, 20).length).to.equal(2);
    expect(pcm.read(20, 30).length).to.equal(0);
  });

  it('holds 2 bytes a sample and 1 byte an exponent, plus at most one partly filled 2 MB block', () => {
    const pcm = new Pcm16Buffer();
    const blockBytes = 2 * BLOCK + BLOCK / 256;
    expect(pcm.byteLength).to.equal(0);
    pcm.append(new Float32Array(1));
    expect(pcm.byteLength).to.equal(blockBytes);
    pcm.append(new Float32Array(BLOCK));
    expect(pcm.byteLength).to.equal(2 * blockBytes);
  });

  it('keeps 16 bits of a passage 90 dB under full scale, where s16 would keep one step', () => {
    const quiet = Float32Array.from({ length: 4096 }, (_, i) => 3e-5 * Math.sin(i / 7));
    const pcm = new Pcm16Buffer();
    pcm.append(Float32Array.of(0.9));
    pcm.append(new Float32Array(255));
    pcm.append(quiet);
    const read = pcm.read(256, 256 + quiet.length);
    let worst = 0;
    for (let i = 0; i < quiet.length; i++) worst = Math.max(worst, Math.abs(read[i]! - quiet[i]!));
    // Half a step of 16 bits below the passage's own peak (3e-5), not of full scale (1.5e-5).
    expect(worst).to.be.at.most(3e-5 / 32768);
    // The loud group before it is read at full-scale steps.
    expect(Math.round(pcm.read(0, 1)[0]! * 32768)).to.equal(Math.round(0.9 * 32768));
  });

  it("a group filled by two appends takes the louder part's exponent, the first part shifted to match", () => {
    const pcm = new Pcm16Buffer();
    pcm.append(new Float32Array(100).fill(1e-4));
    pcm.append(new Float32Array(100).fill(0.5));
    const read = pcm.read(0, 200);
    expect(Math.round(read[0]! * 32768)).to.equal(Math.round(1e-4 * 32768));
    expect(read[0]).to.be.closeTo(1e-4, 2 / 65536);
    expect(read[199]).to.equal(0.5);
  });

  it('gives 16-bit input back exactly, whatever the pieces it came in', () => {
    const steps = Float32Array.from({ length: 3000 }, (_, i) => (((i * 7919) % 201) - 100) / 32768);
    for (const piece of [1, 37, 256, 1000]) {
      const pcm = new Pcm16Buffer();
      for (let from = 0; from < steps.length; from += piece) pcm.append(steps.subarray(from, from + piece));
      expect(Array.from(pcm.read(0, steps.length))).to.deep.equal(Array.from(steps));
    }
  });

  it('floatReader reads views of a Float32Array', () => {
    const samples = Float32Array.of(1, 2, 3, 4);
    const view = floatReader(samples).read(1, 3);
    expect(Array.from(view)).to.deep.equal([2, 3]);
    expect(view.buffer).to.equal(samples.buffer);
  });
});
