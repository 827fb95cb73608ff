import { expect } from 'chai';
import { LiveAudioConverter, pcm16ToFloat } from '../../../src/inference/live-audio/live-audio-converter.js';

function pcm16(samples: number[]): Uint8Array {
  const bytes = Buffer.alloc(samples.length * 2);
  samples.forEach((x, i) => bytes.writeInt16LE(x, i * 2));
  return bytes;
}

describe('LiveAudioConverter', () => {
  it('reads little-endian PCM16 at any byte offset', () => {
    const bytes = new Uint8Array(5);
    bytes.set(pcm16([-32768, 16384]), 1);
    expect([...pcm16ToFloat(bytes.subarray(1))]).to.deep.equal([-1, 0.5]);
  });

  it('scores each complete 512-sample frame once, carrying partial frames across pushes', async () => {
    const scored: number[] = [];
    const converter = new LiveAudioConverter(16_000, async (frames) => {
      for (let at = 0; at < frames.length; at += 512) scored.push(frames[at]!);
      return new Float32Array(frames.length / 512).fill(0.25);
    });
    const first = await converter.push(pcm16(Array.from({ length: 700 }, (_, i) => i)));
    expect(first.samples.length).to.equal(700);
    expect([...first.speechProbabilities]).to.deep.equal([0.25]);
    const second = await converter.push(pcm16(Array.from({ length: 400 }, (_, i) => 700 + i)));
    // 188 carried + 400 new = one more frame (starting at sample 512), 76 carried on.
    expect([...second.speechProbabilities]).to.deep.equal([0.25]);
    expect(scored.map((x) => Math.round(x * 32_768))).to.deep.equal([0, 512]);
  });

  it('resamples 24 kHz input to 16 kHz, two samples for every three', async () => {
    const converter = new LiveAudioConverter(24_000);
    let total = 0;
    for (let i = 0; i < 10; i++) total += (await converter.push(pcm16(Array(2_400).fill(1000)))).samples.length;
    expect(Math.abs(total - 16_000)).to.be.lessThan(64);
  });

  it('decodes G.711 µ-law and A-law, a sample a byte, and resamples 8 kHz to 16 kHz', async () => {
    const ulaw = await new LiveAudioConverter(16_000, undefined, 'g711-ulaw').push(Uint8Array.of(0xff, 0x80, 0x00));
    expect([...ulaw.samples].map((x) => Math.round(x * 32_768))).to.deep.equal([0, 32_124, -32_124]);
    const alaw = await new LiveAudioConverter(16_000, undefined, 'g711-alaw').push(Uint8Array.of(0xd5, 0x55, 0xaa));
    expect([...alaw.samples].map((x) => Math.round(x * 32_768))).to.deep.equal([8, -8, 32_256]);
    const telephone = new LiveAudioConverter(8_000, undefined, 'g711-ulaw');
    let total = 0;
    for (let i = 0; i < 10; i++) total += (await telephone.push(new Uint8Array(800).fill(0x80))).samples.length;
    expect(Math.abs(total - 16_000)).to.be.lessThan(64);
  });
});
