/**
 * The containers browsers and phones record in (WebM/Opus, MP4/M4A/AAC, ADTS AAC), each made
 * from a speech clip (test/fixtures/audio/SPEECH-FIXTURES.md): sniffed from the bytes,
 * decoded to 16 kHz mono of the clip's length and level, and refused with a 400 when broken.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeAudio } from '../../src/audio/decode-audio.js';
import { sniffAudioFormat } from '../../src/audio/sniff-format.js';
import { UndecodableAudioError } from '../../src/errors.js';
import { rejection } from '../helpers/rejection.js';
import { AUDIO_FIXTURES, rms, SPEECH_DIR } from './audio-test-helpers.js';
import { RECORDER_FIXTURES } from './recorder-fixtures.js';

const OPTIONS = { sampleRate: 16000, maxSeconds: 60 };
const fixture = (name: string) => new Uint8Array(readFileSync(join(AUDIO_FIXTURES, name)));

describe('decodeAudio: recorder formats (WebM, MP4/M4A, ADTS)', () => {
  for (const [name, format, source] of RECORDER_FIXTURES) {
    it(`${name}: sniffed as ${format}, decodes to 16 kHz mono like ${source}`, async () => {
      const bytes = fixture(name);
      expect(sniffAudioFormat(bytes)).to.equal(format);
      const original = await decodeAudio(readFileSync(join(SPEECH_DIR, source)), OPTIONS);
      const audio = await decodeAudio(bytes, OPTIONS);
      expect(audio.sampleRate).to.equal(16000);
      // AAC keeps its encoder's priming (≤ 2112 samples at the source rate, < 0.1 s).
      expect(audio.samples.length / 16000).to.be.closeTo(original.samples.length / 16000, 0.12);
      // The stereo fixtures were up-mixed from mono; the down-mix brings them back at −3 dB.
      const level = rms(audio.samples) / rms(original.samples);
      expect(level).to.be.within(name.includes('stereo') ? 0.6 : 0.8, 1.2);
    });
  }

  it('decodes a recording cut off mid-write (MediaRecorder stopped, upload truncated) up to the cut', async () => {
    for (const name of ['speech-48k-stereo-opus-live.webm', 'speech-22k05-mono.aac']) {
      const bytes = fixture(name);
      const cut = bytes.subarray(0, Math.floor(bytes.length * 0.6));
      const audio = await decodeAudio(cut, OPTIONS);
      expect(audio.samples.length / 16000, name).to.be.within(1, 3);
    }
  });

  it('refuses an MP4 cut before its sample tables (moov at the end) with a 400 that says so', async () => {
    const bytes = fixture('speech-44k1-mono-aac.m4a');
    const error = await rejection(decodeAudio(bytes.subarray(0, bytes.length - 600), OPTIONS));
    expect(error).to.be.instanceOf(UndecodableAudioError);
    expect((error as Error).message).to.match(/moov|sample tables/);
  });

  it('refuses sample tables that point past the end of the file', async () => {
    const bytes = fixture('speech-44k1-mono-aac.m4a').slice();
    const stco = Buffer.from(bytes).indexOf('stco');
    // The first chunk offset: far past the end.
    new DataView(bytes.buffer).setUint32(stco + 12, 0x7fffffff);
    const error = await rejection(decodeAudio(bytes, OPTIONS));
    expect(error).to.be.instanceOf(UndecodableAudioError);
    expect((error as Error).message).to.match(/past the end/);
  });

  it('refuses WebM with an unsupported codec, naming it', async () => {
    const bytes = fixture('speech-16k-mono-opus.webm').slice();
    const at = Buffer.from(bytes).indexOf('A_OPUS');
    bytes.set(Buffer.from('A_FOO!'), at);
    const error = await rejection(decodeAudio(bytes, OPTIONS));
    expect(error).to.be.instanceOf(UndecodableAudioError);
    expect((error as Error).message).to.include('A_FOO!');
  });

  it('applies maxSeconds to the new formats (413)', async () => {
    for (const [name] of RECORDER_FIXTURES) {
      const error = await rejection(decodeAudio(fixture(name), { ...OPTIONS, maxSeconds: 1 }));
      expect((error as { status?: number }).status, name).to.equal(413);
    }
  });

  describe('hostile headers cost a scan of the bytes at most', () => {
    it('a WebM declaring 100 000 tracks is a 400 after 64', async () => {
      const header = fixture('speech-16k-mono-opus.webm').subarray(0, 40);
      const ebmlEnd = 5 + (header[4]! & 0x7f); // the EBML header: id (4 bytes), 1-byte size, body
      const tracks = new Uint8Array(100_000 * 2).map((_, i) => (i % 2 === 0 ? 0xae : 0x80)); // empty TrackEntry elements
      const bytes = Buffer.concat([header.subarray(0, ebmlEnd), Buffer.from([0x18, 0x53, 0x80, 0x67, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), tracks]);
      const error = await rejection(decodeAudio(bytes, OPTIONS));
      expect((error as Error).message).to.match(/more than 64 tracks/);
    });

    it('MP4 sample tables claiming 4 billion 1-byte samples are refused once 256 of them decode to nothing', async () => {
      const bytes = fixture('speech-44k1-mono-aac.m4a').slice();
      const view = new DataView(bytes.buffer);
      const stsz = Buffer.from(bytes).indexOf('stsz');
      view.setUint32(stsz + 8, 1); // constant sample size
      view.setUint32(stsz + 12, 0xffffffff); // sample count
      const stsc = Buffer.from(bytes).indexOf('stsc');
      view.setUint32(stsc + 16, 0xffffffff); // samples per chunk of the first run
      // 1-byte "frames" decode to nothing: refused after 256 of them, not fed to FAAD2 to the end.
      const error = await rejection(decodeAudio(bytes, OPTIONS));
      expect(error).to.be.instanceOf(UndecodableAudioError);
      expect((error as Error).message).to.match(/do not decode/);
    });
  });
});
