import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { decodeAudio } from '../../src/audio/decode-audio.js';
import { PayloadTooLargeError, UndecodableAudioError } from '../../src/errors.js';
import { AUDIO_FIXTURES, dominantFrequency, rms, SPEECH_DIR, wavBytes } from './audio-test-helpers.js';
import { rejection } from '../helpers/rejection.js';
import { expectSameFloats } from '../helpers/same-floats.js';

const { WaveFile } = createRequire(import.meta.url)('wavefile') as typeof import('wavefile');
const OPTIONS = { sampleRate: 16000, maxSeconds: 1800 };

/** Durations from test/fixtures/speech/SOURCES.md (rounded there to 0.1 s). */
const SPEECH_CLIPS: [string, number][] = [
  ['en_jfk.wav', 11.0],
  ['en_jfk.mp3', 11.0],
  ['en_librivox_sense_and_sensibility_0880.wav', 3.0],
  ['en_cards_001.wav', 1.1],
  ['en_fleurs_003.ogg', 5.8],
  ['es_fleurs_002.ogg', 9.7],
  ['de_fleurs_000.ogg', 17.9],
];

describe('decodeAudio', () => {
  describe('real speech clips', () => {
    for (const [file, seconds] of SPEECH_CLIPS) {
      it(`decodes ${file} to 16 kHz mono of about ${seconds} s`, async () => {
        const audio = await decodeAudio(readFileSync(join(SPEECH_DIR, file)), OPTIONS);
        expect(audio.sampleRate).to.equal(16000);
        expect(audio.samples.length / 16000).to.be.closeTo(seconds, 0.15);
        // Not silence (the English FLEURS clips are genuinely quiet: peak ≈ 0.005) and not clipped noise.
        expect(rms(audio.samples)).to.be.within(0.0003, 0.7);
      });
    }

    it('gives the same signal for the WAV and MP3 versions of jfk', async () => {
      const wav = await decodeAudio(readFileSync(join(SPEECH_DIR, 'en_jfk.wav')), OPTIONS);
      const mp3 = await decodeAudio(readFileSync(join(SPEECH_DIR, 'en_jfk.mp3')), OPTIONS);
      expect(rms(mp3.samples)).to.be.closeTo(rms(wav.samples), rms(wav.samples) * 0.1);
    });
  });

  describe('stereo tones at other rates', () => {
    for (const file of [
      'tone-44k1-stereo.flac',
      'tone-44k1-stereo-vorbis.ogg',
      'tone-48k-stereo-opus.ogg',
      'tone-44k1-stereo.mp3',
      'tone-22k05-stereo-24bit.wav',
      'tone-8k-mono-ulaw.wav',
    ]) {
      it(`${file}: down-mixes and resamples to a 440 Hz tone at 16 kHz`, async () => {
        const audio = await decodeAudio(readFileSync(join(AUDIO_FIXTURES, file)), OPTIONS);
        expect(audio.sampleRate).to.equal(16000);
        // Lossy codecs add encoder delay/padding; the tone itself is 0.5 s.
        expect(audio.samples.length / 16000).to.be.within(0.45, 0.65);
        const middle = audio.samples.subarray(1600, 6400);
        expect(dominantFrequency(middle, 16000)).to.be.closeTo(440, 10);
        expect(rms(middle)).to.be.closeTo(0.5 / Math.SQRT2, 0.06);
      });
    }

    it('reads 32-bit float WAV', async () => {
      const wav = new WaveFile();
      wav.fromScratch(2, 48000, '32f', [new Float32Array(4800).fill(0.25), new Float32Array(4800).fill(-0.25)]);
      const audio = await decodeAudio(wav.toBuffer(), OPTIONS);
      expect(audio.samples.length).to.equal(1600);
      expect(audio.samples[800]).to.be.closeTo(0, 1e-6);
    });
  });

  describe('WAV encodings decoded in-house (G.711, IMA ADPCM)', () => {
    const AT_8K = { sampleRate: 8000, maxSeconds: 60 };
    const tone = Int16Array.from({ length: 8000 }, (_, i) => Math.round(16000 * Math.sin((2 * Math.PI * 440 * i) / 8000) + (i % 7) * 300 - 900));
    const encoded = (encode: 'toALaw' | 'toIMAADPCM') => {
      const wav = new WaveFile();
      wav.fromScratch(1, 8000, '16', tone);
      wav[encode]();
      return wav.toBuffer();
    };
    const wavefileSamples = (bytes: Uint8Array, decode: 'fromALaw' | 'fromMuLaw' | 'fromIMAADPCM') => {
      const wav = new WaveFile();
      wav.fromBuffer(bytes);
      wav[decode]();
      return wav.getSamples(false, Int16Array) as unknown as Int16Array;
    };

    for (const [what, bytes, decode] of [
      ['µ-law (the 8 kHz fixture)', () => readFileSync(join(AUDIO_FIXTURES, 'tone-8k-mono-ulaw.wav')), 'fromMuLaw'],
      ['A-law', () => encoded('toALaw'), 'fromALaw'],
    ] as const) {
      it(`decodes ${what} exactly as wavefile does`, async () => {
        const audio = await decodeAudio(bytes(), AT_8K);
        const expected = wavefileSamples(bytes(), decode);
        expect(audio.samples.length).to.equal(expected.length);
        expect(audio.samples.every((sample, i) => sample * 32768 === expected[i])).to.equal(true);
      });
    }

    it('decodes mono IMA ADPCM like wavefile, without its repeated first sample per block', async () => {
      const bytes = encoded('toIMAADPCM');
      const audio = await decodeAudio(bytes, AT_8K);
      // wavefile emits each block's header sample twice: 506 samples per 256-byte block, not 505.
      const expected = wavefileSamples(bytes, 'fromIMAADPCM');
      const blocks = Math.floor(audio.samples.length / 505);
      const mismatches = [...audio.samples.subarray(0, blocks * 505)].filter(
        (sample, i) => sample * 32768 !== expected[Math.floor(i / 505) * 506 + (i % 505) + 1],
      );
      expect(blocks).to.be.above(10);
      expect(mismatches).to.have.length(0);
    });

    it('decodes stereo IMA ADPCM (channels in interleaved 4-byte words) to the mean of its channels', async () => {
      // Two mono streams (256-byte blocks) interleaved into one stereo stream (512-byte blocks).
      const left = encoded('toIMAADPCM');
      const right = (() => {
        const wav = new WaveFile();
        wav.fromScratch(
          1,
          8000,
          '16',
          tone.map((sample) => -sample >> 1),
        );
        wav.toIMAADPCM();
        return wav.toBuffer();
      })();
      const monoData = (bytes: Uint8Array) => bytes.subarray(bytes.length - (new WaveFile(bytes).data as { chunkSize: number }).chunkSize);
      const [l, r] = [monoData(left), monoData(right)];
      const blocks = Math.floor(Math.min(l.length, r.length) / 256);
      const stereo = new Uint8Array(blocks * 512);
      for (let b = 0; b < blocks; b++) {
        stereo.set(l.subarray(b * 256, b * 256 + 4), b * 512);
        stereo.set(r.subarray(b * 256, b * 256 + 4), b * 512 + 4);
        for (let w = 0; w < 63; w++) {
          stereo.set(l.subarray(b * 256 + 4 + w * 4, b * 256 + 8 + w * 4), b * 512 + 8 + w * 8);
          stereo.set(r.subarray(b * 256 + 4 + w * 4, b * 256 + 8 + w * 4), b * 512 + 12 + w * 8);
        }
      }
      const fmtExtra = Uint8Array.from([2, 0, 0xf9, 0x01]); // cbSize 2, 505 samples per block
      const audio = await decodeAudio(
        wavBytes({ formatTag: 0x11, channels: 2, sampleRate: 8000, bitsPerSample: 4, blockAlign: 512, fmtExtra, data: stereo }),
        AT_8K,
      );
      const [monoL, monoR] = [await decodeAudio(left, AT_8K), await decodeAudio(right, AT_8K)];
      expect(audio.samples.length).to.equal(blocks * 505);
      const worst = Math.max(...audio.samples.map((sample, i) => Math.abs(sample - (monoL.samples[i]! + monoR.samples[i]!) / 2)));
      expect(worst).to.be.below(1e-6);
    });

    it('reads the whole words of a truncated last IMA ADPCM block', async () => {
      const bytes = encoded('toIMAADPCM');
      const whole = await decodeAudio(bytes, AT_8K);
      const cut = await decodeAudio(bytes.subarray(0, bytes.length - 100), AT_8K);
      expect(cut.samples.length).to.be.below(whole.samples.length);
      expectSameFloats(cut.samples, whole.samples.subarray(0, cut.samples.length));
    });
  });

  describe('bytes that are not decodable audio', () => {
    const jfkWav = () => readFileSync(join(SPEECH_DIR, 'en_jfk.wav'));
    const jfkMp3 = () => readFileSync(join(SPEECH_DIR, 'en_jfk.mp3'));
    const cases: [string, () => Uint8Array, string?][] = [
      ['an empty body', () => new Uint8Array(0)],
      ['text', () => new TextEncoder().encode('this is not audio at all')],
      ['headerless raw PCM', () => readFileSync(join(SPEECH_DIR, 'en_goforward_16k_s16le_mono.raw'))],
      ['random bytes declared as audio/mpeg', () => Uint8Array.from({ length: 4000 }, (_, i) => (i * 7919) % 251), 'audio/mpeg'],
      ['a WAV header without samples', () => jfkWav().subarray(0, 44)],
      ['a WAV cut inside its header', () => jfkWav().subarray(0, 30)],
      ['an MP3 cut inside its ID3 tag', () => jfkMp3().subarray(0, 200)],
      ['an Ogg page header alone', () => readFileSync(join(SPEECH_DIR, 'en_fleurs_003.ogg')).subarray(0, 40)],
      ['a FLAC signature with garbage', () => Uint8Array.from([...Buffer.from('fLaC'), ...new Uint8Array(500).fill(7)])],
    ];
    for (const [what, bytes, contentType] of cases) {
      it(`rejects ${what} with UndecodableAudioError (400 "could not decode audio")`, async () => {
        const error = await rejection(decodeAudio(bytes(), { ...OPTIONS, contentType }));
        expect(error).to.be.instanceOf(UndecodableAudioError);
        expect(error.message).to.match(/^could not decode audio/);
      });
    }

    it('still decodes the readable part of a truncated WAV', async () => {
      const audio = await decodeAudio(jfkWav().subarray(0, 32_000), OPTIONS);
      expect(audio.samples.length).to.be.within(15_900, 16_000); // 32 000 bytes minus the header
      expect(rms(audio.samples)).to.be.above(0.001);
    });
  });

  describe('duration limit', () => {
    it('rejects audio longer than maxSeconds with 413 while decoding', async () => {
      for (const file of ['en_jfk.wav', 'en_jfk.mp3', 'en_fleurs_003.ogg']) {
        const error = await rejection(decodeAudio(readFileSync(join(SPEECH_DIR, file)), { ...OPTIONS, maxSeconds: 2 }));
        expect(error, file).to.be.instanceOf(PayloadTooLargeError);
        expect(error.message).to.match(/longer than the limit of 2 seconds/);
      }
    });
  });
});
