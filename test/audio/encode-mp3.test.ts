import { expect } from 'chai';
import { MPEGDecoder } from 'mpg123-decoder';
import { compileMp3Codec, createMp3StreamEncoder, encodeMp3 } from '../../src/audio/encode-mp3.js';
import type { PcmAudio } from '../../src/audio/pcm-audio.js';

function tone(seconds: number, sampleRate: number): PcmAudio {
  const samples = new Float32Array(Math.round(seconds * sampleRate));
  for (let i = 0; i < samples.length; i++) samples[i] = 0.5 * Math.sin((2 * Math.PI * 440 * i) / sampleRate);
  return { samples, sampleRate };
}

async function decode(bytes: Uint8Array): Promise<{ seconds: number; sampleRate: number; errors: number }> {
  const decoder = new MPEGDecoder();
  await decoder.ready;
  try {
    const out = decoder.decode(bytes);
    return { seconds: out.samplesDecoded / out.sampleRate, sampleRate: out.sampleRate, errors: out.errors.length };
  } finally {
    decoder.free();
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

// LAME adds an encoder delay and pads the last frame: at most ~2 frames (2 × 1152 samples).
const toleranceSeconds = (sampleRate: number) => (2 * 1152) / sampleRate;

describe('encodeMp3', () => {
  for (const sampleRate of [16000, 22050, 24000]) {
    it(`keeps the sample rate and duration of ${sampleRate} Hz mono`, async () => {
      const bytes = await encodeMp3(tone(1.5, sampleRate));
      expect([bytes[0], bytes[1]! & 0xe0]).to.deep.equal([0xff, 0xe0]); // an MPEG frame sync first
      const decoded = await decode(bytes);
      expect(decoded.errors).to.equal(0);
      expect(decoded.sampleRate).to.equal(sampleRate);
      expect(decoded.seconds).to.be.closeTo(1.5, toleranceSeconds(sampleRate));
    });
  }

  it('is about 64 kbit/s', async () => {
    const bytes = await encodeMp3(tone(2, 22050));
    expect((bytes.length * 8) / 2 / 1000).to.be.within(56, 72);
  });

  it('rejects a sample rate MP3 cannot carry', async () => {
    let error: unknown;
    await encodeMp3(tone(0.1, 44000)).catch((caught: unknown) => (error = caught));
    expect(error).to.be.instanceOf(RangeError);
  });
});

describe('createMp3StreamEncoder', () => {
  it('produces chunks that concatenate into one MP3 of the full duration', async () => {
    const audio = tone(3, 22050);
    const encoder = await createMp3StreamEncoder({ sampleRate: 22050 });
    const parts: Uint8Array[] = [];
    // Uneven chunk sizes, like sentences of different lengths.
    for (const [start, end] of [
      [0, 1000],
      [1000, 30000],
      [30000, 31000],
      [31000, audio.samples.length],
    ] as const) {
      parts.push(encoder.encode(audio.samples.subarray(start, end)));
    }
    parts.push(encoder.finish());
    const decoded = await decode(concat(parts));
    expect(decoded.errors).to.equal(0);
    expect(decoded.sampleRate).to.equal(22050);
    expect(decoded.seconds).to.be.closeTo(3, toleranceSeconds(22050));
    // The same bytes as encoding in one piece: no per-chunk headers or padding.
    expect(Buffer.from(concat(parts)).equals(Buffer.from(await encodeMp3(audio)))).to.equal(true);
  });

  it('returns chunks that stay valid after later calls (copied out of WASM memory)', async () => {
    const encoder = await createMp3StreamEncoder({ sampleRate: 16000 });
    const first = encoder.encode(tone(1, 16000).samples);
    const snapshot = Buffer.from(first);
    encoder.encode(tone(1, 16000).samples.map((sample) => -sample));
    encoder.finish();
    expect(Buffer.from(first).equals(snapshot)).to.equal(true);
  });

  it('cannot be used after finish', async () => {
    const encoder = await createMp3StreamEncoder({ sampleRate: 16000 });
    encoder.finish();
    expect(() => encoder.encode(new Float32Array(10))).to.throw(/finished/);
  });
});

describe('compileMp3Codec', () => {
  it('gives a module that new stream encoders reuse', async () => {
    const codec = await compileMp3Codec();
    const audio = tone(0.5, 16000);
    const encoder = await createMp3StreamEncoder({ sampleRate: 16000, codec });
    const bytes = concat([encoder.encode(audio.samples), encoder.finish()]);
    expect(Buffer.from(bytes).equals(Buffer.from(await encodeMp3(audio)))).to.equal(true);
  });
});
