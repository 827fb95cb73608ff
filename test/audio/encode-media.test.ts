import { expect } from 'chai';
import { decodeAudio } from '../../src/audio/decode-audio.js';
import { MediaStreamEncoder, type MediaFormat } from '../../src/audio/encode-media.js';
import { dominantFrequency, rms, sine } from './audio-test-helpers.js';

const CASES: [MediaFormat, number][] = [
  ['opus', 24000],
  ['opus', 8000],
  ['flac', 22050],
  ['flac', 48000],
  ['aac', 22050],
  ['aac', 16000],
];

describe('MediaStreamEncoder (Ogg Opus, FLAC, AAC/ADTS)', () => {
  for (const [format, rate] of CASES) {
    const streamed = format !== 'flac';
    it(`${format} at ${rate} Hz: ${streamed ? 'bytes after every second of input' : 'one whole file whose header has the sample count'}, decoding back to the same tone and length`, async () => {
      const encoder = await MediaStreamEncoder.open(format, rate);
      const parts: Uint8Array[] = [];
      for (let second = 0; second < 3; second++) {
        const part = await encoder.encode(sine(440, rate, 1, 0.3));
        // Streamed: each second of input yields output at once, not only at the end.
        if (streamed) expect(part.length, `second ${second}`).to.be.greaterThan(0);
        else expect(part.length, `second ${second}`).to.equal(0);
        parts.push(part);
      }
      parts.push(await encoder.finish());
      const bytes = Buffer.concat(parts);
      if (!streamed) {
        // STREAMINFO (after "fLaC" and its 4-byte block header): 36 bits of total samples at byte 21.
        const totalSamples = (bytes[21]! & 0x0f) * 2 ** 32 + bytes.readUInt32BE(22);
        expect(totalSamples).to.equal(3 * rate);
      }
      const audio = await decodeAudio(bytes, { sampleRate: 16000, maxSeconds: 60 });
      // Each codec adds ≤ 0.13 s of priming or padding (AAC: 1024–2048 samples).
      expect(audio.samples.length / 16000).to.be.closeTo(3, 0.15);
      const middle = audio.samples.subarray(8000, 40000);
      expect(dominantFrequency(middle, 16000)).to.be.closeTo(440, 10);
      expect(rms(middle)).to.be.closeTo(0.3 / Math.SQRT2, 0.04);
    });
  }

  it('refuses a rate the format cannot carry (the route answers 400 before this)', async () => {
    const error = await MediaStreamEncoder.open('opus', 22050).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(RangeError);
  });

  it('can be abandoned mid-stream', async () => {
    const encoder = await MediaStreamEncoder.open('aac', 16000);
    await encoder.encode(sine(440, 16000, 1, 0.3));
    await encoder.abort();
  });
});
