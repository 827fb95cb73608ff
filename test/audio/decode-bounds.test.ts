/**
 * Issue 8: audio headers are untrusted. Hostile values must answer a clear 400 (or 413) fast
 * and with bounded memory. Cases that hung or ballooned before the fix run in a worker under
 * a time cap (IsolatedAudio), so a regression fails the test instead of the test process.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeAudio } from '../../src/audio/decode-audio.js';
import { PayloadTooLargeError, UndecodableAudioError } from '../../src/errors.js';
import { rejection } from '../helpers/rejection.js';
import { AUDIO_FIXTURES, flacSilence, SPEECH_DIR, wavBytes } from './audio-test-helpers.js';
import { IsolatedAudio, type IsolatedResult } from './isolated-audio.js';

const OPTIONS = { sampleRate: 16000, maxSeconds: 1800 };
const MB = 1024 * 1024;
/** Messages of DataView, typed-array and WASM failures, which must never reach a client. */
const LIBRARY_MESSAGE = /DataView|RangeError|out of bounds|outside the bounds|offset|wasm|memory|undefined|NaN/i;

function expectRejected(result: IsolatedResult, errorClass: typeof UndecodableAudioError | typeof PayloadTooLargeError, message: RegExp): void {
  expect(result.outcome.ok, 'the call should fail').to.equal(false);
  const error = (result.outcome as { error: Error }).error;
  expect(error, error.stack).to.be.instanceOf(errorClass);
  expect(error.message).to.match(message);
  expect(error.message).to.not.match(LIBRARY_MESSAGE);
}

function fixture(name: string): Uint8Array {
  return new Uint8Array(readFileSync(join(AUDIO_FIXTURES, name)));
}

/** A copy of `bytes` with `patch` applied at the first occurrence of `signature` plus `offset`. */
function patchedAfter(bytes: Uint8Array, signature: number[], offset: number, patch: number[]): Uint8Array {
  const copy = bytes.slice();
  const at = Buffer.from(copy).indexOf(Buffer.from(signature));
  expect(at, 'signature present').to.be.at.least(0);
  copy.set(patch, at + offset);
  return copy;
}

describe('decoding hostile audio headers (issue 8)', () => {
  const isolated = new IsolatedAudio();
  after(() => isolated.close());

  describe('WAV sample rates that made the resampler grow without bound', () => {
    const cases: [string, Uint8Array, number][] = [
      ['a 3,244-byte 16-bit WAV at 0xFFFFFFFF Hz', wavBytes({ sampleRate: 0xffffffff }), 0xffffffff],
      ['a 3,244-byte 16-bit WAV at 0x80000000 Hz', wavBytes({ sampleRate: 0x80000000 }), 0x80000000],
      ['a 144-byte 8-bit WAV at 0xFFFFFFFF Hz', wavBytes({ sampleRate: 0xffffffff, bitsPerSample: 8, data: new Uint8Array(100).fill(128) }), 0xffffffff],
      ['a 144-byte 8-bit WAV at 0x80000000 Hz', wavBytes({ sampleRate: 0x80000000, bitsPerSample: 8, data: new Uint8Array(100).fill(128) }), 0x80000000],
    ];
    for (const [what, bytes, rate] of cases) {
      it(`answers ${what} with a 400 within a second and without growing memory`, async () => {
        const result = await isolated.decode(bytes, OPTIONS, 5000);
        expectRejected(result, UndecodableAudioError, new RegExp(`sample rate ${rate} Hz is outside the supported range 1000–384000 Hz`));
        expect(result.milliseconds).to.be.below(1000);
        expect(result.peakRssGrowth).to.be.below(64 * MB);
      });
    }

    it('still decodes the edges of the range (1000 Hz and 384000 Hz)', async () => {
      for (const sampleRate of [1000, 384000]) {
        const audio = await decodeAudio(wavBytes({ sampleRate, data: new Uint8Array(sampleRate * 2).fill(0x10) }), OPTIONS);
        expect(audio.samples.length, `${sampleRate} Hz`).to.equal(16000);
      }
    });
  });

  describe('other WAV header fields', () => {
    const pcm16 = new Uint8Array(3200);
    const cases: [string, () => Uint8Array, RegExp][] = [
      ['65535 channels', () => wavBytes({ channels: 65535, blockAlign: 2 }), /the WAV audio has 65535 channels; 1 to 8 are supported/],
      ['0 channels', () => wavBytes({ channels: 0, blockAlign: 2 }), /the WAV audio has 0 channels/],
      ['9 channels', () => wavBytes({ channels: 9, data: new Uint8Array(18 * 100) }), /the WAV audio has 9 channels/],
      ['a zero block alignment', () => wavBytes({ blockAlign: 0 }), /block alignment 0 does not match 1 channels of 16 bits/],
      ['a huge block alignment', () => wavBytes({ blockAlign: 65535 }), /block alignment 65535 does not match 1 channels of 16 bits/],
      [
        'a block alignment too small for its frames',
        () => wavBytes({ channels: 2, bitsPerSample: 24, blockAlign: 2 }),
        /block alignment 2 does not match 2 channels of 24 bits/,
      ],
      ['12-bit PCM', () => wavBytes({ bitsPerSample: 12, blockAlign: 2 }), /unsupported WAV sample size: 12-bit pcm/],
      ['0-bit PCM', () => wavBytes({ bitsPerSample: 0, blockAlign: 2 }), /unsupported WAV sample size: 0-bit pcm/],
      ['16-bit float', () => wavBytes({ formatTag: 3, bitsPerSample: 16 }), /unsupported WAV sample size: 16-bit float/],
      ['16-bit µ-law', () => wavBytes({ formatTag: 7, bitsPerSample: 16 }), /unsupported WAV sample size: 16-bit mulaw/],
      ['an unknown encoding', () => wavBytes({ formatTag: 0x55 }), /unsupported WAV encoding \(format tag 85\)/],
      [
        'an IMA ADPCM block that cannot hold its channels',
        () => wavBytes({ formatTag: 0x11, bitsPerSample: 4, blockAlign: 3 }),
        /block alignment 3 is not a valid IMA ADPCM block for 1 channels/,
      ],
      ['a format chunk declared 8 bytes long', () => wavBytes({ fmtSize: 8, data: pcm16 }), /the WAV format chunk is truncated/],
      ['a file cut inside the format chunk', () => wavBytes().subarray(0, 30), /the WAV format chunk is truncated/],
      ['an extensible format chunk without its sub-format', () => wavBytes({ formatTag: 0xfffe }), /the WAV extensible format chunk is truncated/],
      ['a data chunk before the format chunk', () => dataFirstWav(), /data chunk comes before its format chunk/],
    ];
    for (const [what, bytes, message] of cases) {
      it(`answers a WAV with ${what} with a 400 that names the problem`, async () => {
        expectRejected(await isolated.decode(bytes(), OPTIONS, 5000), UndecodableAudioError, message);
      });
    }

    it('reads what is present when the data chunk declares more (0xFFFFFFFF, as streaming writers do)', async () => {
      const audio = await decodeAudio(wavBytes({ dataSize: 0xffffffff, data: new Uint8Array(3201) }), OPTIONS);
      expect(audio.samples.length).to.equal(1600);
    });

    it('refuses a WAV whose header says it is too long before converting it (413)', async () => {
      const error = await rejection(decodeAudio(wavBytes({ sampleRate: 1000, data: new Uint8Array(8000) }), { ...OPTIONS, maxSeconds: 3 }));
      expect(error).to.be.instanceOf(PayloadTooLargeError);
    });

    it('turns NaN, infinities and huge values of a float WAV into finite samples', async () => {
      const floats = new Float32Array(1600).fill(0.25);
      floats.set([NaN, Infinity, -Infinity, 3e38, -3e38], 800);
      const audio = await decodeAudio(wavBytes({ formatTag: 3, bitsPerSample: 32, data: new Uint8Array(floats.buffer) }), OPTIONS);
      expect(audio.samples.every((sample) => Number.isFinite(sample) && Math.abs(sample) <= 1.5)).to.equal(true);
    });
  });

  describe('FLAC and Ogg identification headers', () => {
    it('answers a FLAC whose STREAMINFO declares 1 MHz with a 400 before decoding', async () => {
      // 1 000 000 in the 20-bit rate field, keeping the channel and sample-size bits of byte 20.
      const bytes = fixture('tone-44k1-stereo.flac');
      bytes.set([0xf4, 0x24, (0x0 << 4) | (bytes[20]! & 0x0f)], 18);
      expectRejected(await isolated.decode(bytes, OPTIONS, 5000), UndecodableAudioError, /the FLAC sample rate 1000000 Hz is outside the supported range/);
    });

    it('answers a FLAC cut inside its STREAMINFO with a 400', async () => {
      const error = await rejection(decodeAudio(fixture('tone-44k1-stereo.flac').subarray(0, 30), OPTIONS));
      expect(error).to.be.instanceOf(UndecodableAudioError);
      expect(error.message).to.match(/does not start with a complete STREAMINFO header/);
    });

    it('answers an Ogg Opus stream declaring 255 channels with a 400 before decoding', async () => {
      const bytes = patchedAfter(fixture('tone-48k-stereo-opus.ogg'), [...Buffer.from('OpusHead')], 9, [255]);
      expectRejected(await isolated.decode(bytes, OPTIONS, 5000), UndecodableAudioError, /the Ogg Opus audio has 255 channels; 1 to 8 are supported/);
    });

    it('answers an Ogg Vorbis stream declaring 0xFFFFFFFF Hz with a 400 before decoding', async () => {
      const bytes = patchedAfter(fixture('tone-44k1-stereo-vorbis.ogg'), [1, ...Buffer.from('vorbis')], 12, [0xff, 0xff, 0xff, 0xff]);
      expectRejected(
        await isolated.decode(bytes, OPTIONS, 5000),
        UndecodableAudioError,
        /the Ogg Vorbis sample rate 4294967295 Hz is outside the supported range/,
      );
    });

    it('answers an Ogg Vorbis stream declaring 0 channels with a 400', async () => {
      const bytes = patchedAfter(fixture('tone-44k1-stereo-vorbis.ogg'), [1, ...Buffer.from('vorbis')], 11, [0]);
      expectRejected(await isolated.decode(bytes, OPTIONS, 5000), UndecodableAudioError, /the Ogg Vorbis audio has 0 channels/);
    });
  });

  describe('Ogg page CRCs', () => {
    /** Where each page of an Ogg stream starts and ends. */
    function pages(bytes: Uint8Array): { start: number; end: number }[] {
      const found: { start: number; end: number }[] = [];
      for (let at = 0; at < bytes.length; ) {
        const segments = bytes[at + 26]!;
        let end = at + 27 + segments;
        for (let i = 0; i < segments; i++) end += bytes[at + 27 + i]!;
        found.push({ start: at, end });
        at = end;
      }
      return found;
    }

    for (const name of ['tone-48k-stereo-opus.ogg', 'tone-44k1-stereo-vorbis.ogg']) {
      it(`answers ${name} with one byte of a page's audio flipped with a 400 naming the page and its CRC`, async () => {
        const bytes = fixture(name);
        const last = pages(bytes).at(-1)!;
        bytes[last.end - 10]! ^= 0x01;
        expectRejected(
          await isolated.decode(bytes, OPTIONS, 5000),
          UndecodableAudioError,
          new RegExp(`data is corrupt: the Ogg page at byte ${last.start} fails its CRC check`),
        );
      });
    }

    it('answers bytes between pages that are not a page with a 400 naming where', async () => {
      const bytes = fixture('tone-48k-stereo-opus.ogg');
      const second = pages(bytes)[1]!;
      const spliced = Buffer.concat([bytes.subarray(0, second.start), Buffer.from('junk'), bytes.subarray(second.start)]);
      const error = await rejection(decodeAudio(spliced, OPTIONS));
      expect(error).to.be.instanceOf(UndecodableAudioError);
      expect(error.message).to.match(new RegExp(`no Ogg page starts at byte ${second.start}`));
    });

    it('ignores trailing bytes after the last page (a tag some writers append)', async () => {
      const bytes = fixture('tone-48k-stereo-opus.ogg');
      const whole = await decodeAudio(bytes, OPTIONS);
      const tagged = await decodeAudio(Buffer.concat([bytes, Buffer.from('TAG'), Buffer.alloc(125)]), OPTIONS);
      expect(tagged.samples.length).to.equal(whole.samples.length);
    });

    it('decodes the whole pages of a stream cut inside its last page', async () => {
      const bytes = fixture('tone-48k-stereo-opus.ogg');
      const found = pages(bytes);
      expect(found.length, 'headers and two pages of audio').to.equal(4);
      const whole = await decodeAudio(bytes, OPTIONS);
      const cut = await decodeAudio(bytes.subarray(0, found[3]!.end - 10), OPTIONS);
      expect(cut.samples.length).to.be.above(0).and.below(whole.samples.length);
    });

    it('passes every real Ogg file we have (fixtures and the speech clips)', async () => {
      const files = [
        ...['tone-48k-stereo-opus.ogg', 'tone-44k1-stereo-vorbis.ogg'].map((name) => join(AUDIO_FIXTURES, name)),
        ...readdirSync(SPEECH_DIR)
          .filter((name) => name.endsWith('.ogg'))
          .map((name) => join(SPEECH_DIR, name)),
      ];
      expect(files.length).to.be.at.least(3);
      for (const file of files) {
        const audio = await decodeAudio(readFileSync(file), OPTIONS);
        expect(audio.samples.length, file).to.be.above(4000);
      }
    });
  });

  describe('memory and time budget', () => {
    // 20 s of 384 kHz 8-channel silence in ~4 kB: 61 M source samples (245 MB as Float32).
    const denseFlac = flacSilence({ sampleRate: 384000, channels: 8, seconds: 20 });

    it('keeps memory to the 16 kHz mono output, not the 384 kHz 8-channel source', async () => {
      const result = await isolated.decode(denseFlac, OPTIONS, 30_000);
      expect(result.outcome.ok, String((result.outcome as { error?: Error }).error)).to.equal(true);
      const { summary } = result.outcome as { summary: { length: number; finite: boolean; peak: number } };
      expect(summary.length).to.equal(20 * 16000);
      expect(summary.peak).to.equal(0);
      // The output is 1.3 MB; the source as Float32 would be 245 MB, twice that while joined.
      expect(result.peakRssGrowth).to.be.below(150 * MB);
    });

    it('stops a decode that passes its deadline with a 413 that says so', async () => {
      const error = await rejection(decodeAudio(denseFlac, { ...OPTIONS, deadlineMs: 20 }));
      expect(error).to.be.instanceOf(PayloadTooLargeError);
      expect(error.message).to.equal('decoding the audio took longer than the limit of 0.02 seconds; send shorter audio or a lower sample rate');
    });

    it('applies the deadline to WAV too', async () => {
      const longWav = wavBytes({ sampleRate: 384000, channels: 8, data: new Uint8Array(384000 * 16 * 2) });
      const error = await rejection(decodeAudio(longWav, { ...OPTIONS, deadlineMs: 1 }));
      expect(error).to.be.instanceOf(PayloadTooLargeError);
    });
  });
});

/** A WAV with its data chunk first and its format chunk second. */
function dataFirstWav(): Uint8Array {
  const normal = wavBytes({ data: new Uint8Array(8) });
  const fmt = normal.subarray(12, 36);
  const data = normal.subarray(36);
  const out = new Uint8Array(normal.length);
  out.set(normal.subarray(0, 12));
  out.set(data, 12);
  out.set(fmt, 12 + data.length);
  return out;
}
