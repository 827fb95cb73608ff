import { expect } from 'chai';
import {
  DECODE_MS_PER_AUDIO_SECOND,
  DecodeDeadline,
  decodeDeadline,
  DEFAULT_DECODE_DEADLINE_MS,
  FREE_SECONDS,
  MAX_FRAMES_PER_INPUT_BYTE,
} from '../../src/audio/decode-budget.js';
import { PcmCollector } from '../../src/audio/pcm-collector.js';
import { resample } from '../../src/audio/resample.js';
import { PayloadTooLargeError, UndecodableAudioError } from '../../src/errors.js';
import { sine } from './audio-test-helpers.js';

const collector = (options: Partial<ConstructorParameters<typeof PcmCollector>[0]> = {}) =>
  new PcmCollector({ sampleRate: 16000, maxSeconds: 60, format: 'Test', ...options });

describe('PcmCollector', () => {
  it('downmixes and resamples chunk by chunk to what one whole-buffer pass gives', () => {
    const left = sine(440, 44100, 0.5);
    const right = sine(660, 44100, 0.5, 0.25);
    const pcm = collector();
    for (let start = 0; start < left.length; start += 4000) {
      const end = Math.min(start + 4000, left.length);
      // Decoders reuse their buffers: hand over views that are overwritten afterwards.
      const chunk = [left.slice(start, end), right.slice(start, end)];
      pcm.add(chunk, end - start, 44100);
      chunk.forEach((channel) => channel.fill(9));
    }
    const mono = left.map((sample, i) => sample / 2 + right[i]! / 2);
    const expected = resample(mono, 44100, 16000);
    const { samples, sampleRate } = pcm.finish();
    expect(sampleRate).to.equal(16000);
    expect(samples.length).to.equal(expected.length);
    expect(Math.max(...samples.map((sample, i) => Math.abs(sample - expected[i]!)))).to.be.below(1e-6);
  });

  it('refuses a rate outside 1000–384000 Hz, more than 8 channels and a rate change with 400s', () => {
    expect(() => collector().add([new Float32Array(4)], 4, 384001)).to.throw(
      UndecodableAudioError,
      /the Test sample rate 384001 Hz is outside the supported range 1000–384000 Hz/,
    );
    const nine = Array.from({ length: 9 }, () => new Float32Array(4));
    expect(() => collector().add(nine, 4, 16000)).to.throw(UndecodableAudioError, /the Test audio has 9 channels; 1 to 8 are supported/);
    const pcm = collector();
    pcm.add([new Float32Array(4)], 4, 16000);
    expect(() => pcm.add([new Float32Array(4)], 4, 22050)).to.throw(UndecodableAudioError, /sample rate changes inside the stream/);
  });

  it('refuses a chunk that claims more frames than its channels hold', () => {
    expect(() => collector().add([new Float32Array(4)], 5, 16000)).to.throw(UndecodableAudioError, /returned inconsistent data/);
  });

  it('stops with a 413 as soon as the source frames pass maxSeconds', () => {
    const pcm = collector({ maxSeconds: 1 });
    pcm.add([new Float32Array(16000)], 16000, 16000);
    expect(() => pcm.add([new Float32Array(1)], 1, 16000)).to.throw(PayloadTooLargeError, /longer than the limit of 1 seconds/);
  });

  it('stops with a 413 once the frames pass what the input bytes can hold, whatever the duration limit', () => {
    // 2000 bytes may hold 1 M frames: 62 s at 16 kHz, past FREE_SECONDS.
    const inputBytes = 2000;
    const allowed = inputBytes * MAX_FRAMES_PER_INPUT_BYTE;
    const pcm = collector({ maxSeconds: 3600, inputBytes });
    const chunk = [new Float32Array(16_000)];
    for (let frames = 0; frames + 16_000 <= allowed; frames += 16_000) pcm.add(chunk, 16_000, 16_000);
    pcm.add(chunk, allowed % 16_000, 16_000);
    expect(() => pcm.add(chunk, 1, 16_000)).to.throw(
      PayloadTooLargeError,
      'the Test data decodes to more audio than its 2000 bytes can honestly hold (over 62 seconds at 16000 Hz; the limit is 500 samples per channel per byte',
    );
  });

  it('lets FREE_SECONDS through from any number of bytes, counting frames per channel, not samples', () => {
    const pcm = collector({ maxSeconds: 3600, inputBytes: 10 });
    const eight = Array.from({ length: 8 }, () => new Float32Array(16_000));
    for (let second = 0; second < FREE_SECONDS; second++) pcm.add(eight, 16_000, 16_000);
    expect(() => pcm.add(eight, 1, 16_000)).to.throw(PayloadTooLargeError, /its 10 bytes can honestly hold \(over 30 seconds at 16000 Hz/);
  });

  it('applies no byte budget when the input size is not given', () => {
    const pcm = collector({ maxSeconds: 3600 });
    pcm.add([new Float32Array(16_000 * 60)], 16_000 * 60, 16_000);
    expect(pcm.finish().samples.length).to.equal(16_000 * 60);
  });

  it('answers no audio, or less than one output sample, with a 400', () => {
    expect(() => collector().finish()).to.throw(UndecodableAudioError, /no Test audio found/);
    const pcm = collector();
    pcm.add([new Float32Array(1)], 1, 384000);
    expect(() => pcm.finish()).to.throw(UndecodableAudioError, /shorter than one sample at 16000 Hz/);
  });

  it('with keep16, holds the same audio as 16-bit samples (finish16), not Float32 pieces', () => {
    const tone = sine(440, 44100, 0.5);
    const float = collector();
    const sixteen = collector({ keep16: true });
    for (let start = 0; start < tone.length; start += 4000) {
      const chunk = tone.slice(start, start + 4000);
      float.add([chunk], chunk.length, 44100);
      sixteen.add([chunk], chunk.length, 44100);
    }
    const expected = float.finish().samples;
    const pcm = sixteen.finish16();
    expect(pcm.length).to.equal(expected.length);
    const read = pcm.read(0, pcm.length);
    expect(Math.max(...read.map((sample, i) => Math.abs(sample - expected[i]!)))).to.be.at.most(1 / 65536 + 1e-7);
    expect(() => sixteen.finish()).to.throw(/finish16/);
    expect(() => collector().finish16()).to.throw(/keep16/);
  });

  it('takes an unsupported output rate as a programming error (RangeError)', () => {
    expect(() => collector({ sampleRate: 0 })).to.throw(RangeError);
  });
});

describe('DecodeDeadline', () => {
  it(`defaults to ${DEFAULT_DECODE_DEADLINE_MS / 1000} s and then throws a 413 that names it`, () => {
    let now = 1000;
    const deadline = new DecodeDeadline(undefined, () => now);
    now += DEFAULT_DECODE_DEADLINE_MS;
    deadline.check();
    now += 1;
    expect(() => deadline.check()).to.throw(
      PayloadTooLargeError,
      `decoding the audio took longer than the limit of ${DEFAULT_DECODE_DEADLINE_MS / 1000} seconds`,
    );
  });
});

describe('DecodeDeadline growing with the audio decoded', () => {
  it('allows the base plus msPerAudioSecond for each second decoded so far, and names the budget it passed', () => {
    let now = 0;
    const deadline = new DecodeDeadline(30_000, () => now, 40);
    now = 30_000 + 40 * 3600; // an hour decoded: 174 s
    deadline.check(3600);
    expect(() => deadline.check(1800)).to.throw(PayloadTooLargeError, 'decoding the audio took longer than the limit of 102 seconds');
  });

  it('scales by default, and is fixed when a deadline is given without a rate', async () => {
    // decodeDeadline reads performance.now(); a rate of 0 and a 1-ms deadline pass at once.
    const fixed = decodeDeadline({ maxSeconds: 60, deadlineMs: 1 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(() => fixed.check(3600)).to.throw(PayloadTooLargeError);
    const scaled = decodeDeadline({ maxSeconds: 60 });
    expect(() => scaled.check(0)).to.not.throw();
    expect(DEFAULT_DECODE_DEADLINE_MS + DECODE_MS_PER_AUDIO_SECOND * 3600).to.equal(174_000);
  });
});
