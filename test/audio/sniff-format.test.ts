import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sniffAudioFormat } from '../../src/audio/sniff-format.js';
import { AUDIO_FIXTURES, SPEECH_DIR } from './audio-test-helpers.js';

describe('sniffAudioFormat', () => {
  const cases: [string, string, string][] = [
    [SPEECH_DIR, 'en_jfk.mp3', 'mp3'],
    [SPEECH_DIR, 'en_jfk.wav', 'wav'],
    [SPEECH_DIR, 'en_fleurs_003.ogg', 'ogg-opus'],
    [AUDIO_FIXTURES, 'tone-44k1-stereo.flac', 'flac'],
    [AUDIO_FIXTURES, 'tone-44k1-stereo-vorbis.ogg', 'ogg-vorbis'],
    [AUDIO_FIXTURES, 'speech-16k-mono-opus.webm', 'webm'],
    [AUDIO_FIXTURES, 'speech-16k-mono-aac.mka', 'webm'],
    [AUDIO_FIXTURES, 'speech-44k1-mono-aac.m4a', 'mp4'],
    [AUDIO_FIXTURES, 'speech-48k-stereo-aac-fragmented.mp4', 'mp4'],
    [AUDIO_FIXTURES, 'speech-22k05-mono.aac', 'aac'],
    [AUDIO_FIXTURES, 'tone-44k1-stereo.mp3', 'mp3'],
  ];
  for (const [dir, file, format] of cases) {
    it(`recognises ${file} as ${format} from its bytes, whatever the content type says`, () => {
      const bytes = readFileSync(join(dir, file));
      expect(sniffAudioFormat(bytes)).to.equal(format);
      expect(sniffAudioFormat(bytes, 'audio/wav')).to.equal(format);
    });
  }

  it('returns undefined for headerless or unknown bytes', () => {
    expect(sniffAudioFormat(readFileSync(join(SPEECH_DIR, 'en_goforward_16k_s16le_mono.raw')))).to.equal(undefined);
    expect(sniffAudioFormat(new TextEncoder().encode('hello world'))).to.equal(undefined);
    expect(sniffAudioFormat(new Uint8Array(0))).to.equal(undefined);
  });

  it('trusts a declared audio/mpeg type for a stream without a leading frame header', () => {
    expect(sniffAudioFormat(new Uint8Array([1, 2, 3, 4]), 'audio/mpeg')).to.equal('mp3');
  });

  it('finds ADTS after an ID3 tag (still MP3 when MPEG frames follow), and trusts a declared audio/aac', () => {
    const adts = readFileSync(join(AUDIO_FIXTURES, 'speech-22k05-mono.aac'));
    const id3 = Buffer.from([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 10, ...new Array(10).fill(0)]);
    expect(sniffAudioFormat(Buffer.concat([id3, adts]))).to.equal('aac');
    expect(sniffAudioFormat(Buffer.concat([id3, readFileSync(join(AUDIO_FIXTURES, 'tone-44k1-stereo.mp3'))]))).to.equal('mp3');
    expect(sniffAudioFormat(new Uint8Array([1, 2, 3, 4]), 'audio/aac')).to.equal('aac');
  });
});
