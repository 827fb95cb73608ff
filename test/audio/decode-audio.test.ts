import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { decodeAudio } from '../../src/audio/decode-audio.js';
import { PayloadTooLargeError, UndecodableAudioError } from '../../src/errors.js';
import { AUDIO_FIXTURES, dominantFrequency, rms, SPEECH_DIR } from './audio-test-helpers.js';
import { rejection } from '../helpers/rejection.js';

const { WaveFile } = createRequire(import.meta.url)('wavefile') as typeof import('wavefile');
const OPTIONS = { sampleRate: 16000, maxSeconds: 1800 };

/** Durations from /work/shared/eval/speech/SOURCES.md (rounded there to 0.1 s). */
const SPEECH_CLIPS: [string, number][] = [
  ['en_jfk.wav', 11.0],
  ['en_jfk.mp3', 11.0],
  ['en_librivox_sense_and_sensibility_0870.wav', 7.1],
  ['en_cards_001.wav', 1.1],
  ['en_ljspeech_LJ050-0131.wav', 7.7],
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
