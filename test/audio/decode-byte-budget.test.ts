/**
 * Small uploads that claim an hour: every codec can state audio for next to nothing, so before
 * the byte budget a ~90 kB file decoded a full hour of concealment or silence, holding a speech
 * worker for as long as that takes, before its 413. Each attack file (claimed-hour-audio.ts)
 * must now stop at what its bytes can hold, with a 413 that says so, or, for tables that replay
 * the same bytes, with a 400 before decoding far. The assertions are on the reason each stops
 * (which is what changed), not on time, which depends on the machine; the cost of what the budget
 * lets through is measured in docs/benchmarks.md ("Decode byte budget"). And what real encoders write at their most
 * compact (digital silence, low bitrates) must still decode.
 */
import { expect } from 'chai';
import OpusScript from 'opusscript';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createEncoder } from 'wasm-media-encoders';
import { decodeAudio } from '../../src/audio/decode-audio.js';
import { FREE_SECONDS, MAX_FRAMES_PER_INPUT_BYTE } from '../../src/audio/decode-budget.js';
import { MediaStreamEncoder, type MediaFormat } from '../../src/audio/encode-media.js';
import { encodeMp3 } from '../../src/audio/encode-mp3.js';
import { DEFAULT_LIMITS } from '../../src/config/load-config.js';
import { PayloadTooLargeError, UndecodableAudioError } from '../../src/errors.js';
import { flacSilence, sine } from './audio-test-helpers.js';
import { adtsSilence, mp4OverlappingChunks, oggOpusConcealment, oggPage, opusConcealmentPacket, webmConcealment } from './claimed-hour-audio.js';
import { IsolatedAudio, type IsolatedResult } from './isolated-audio.js';

const HOUR = 3660;
/**
 * What the concealment files claim. The budget scales with the bytes, so a tenth of the hour in a
 * tenth of the bytes is refused by the same rule at a tenth of the decoding (the hour-long ~92 kB
 * files cost ~10× more CPU to refuse: docs/benchmarks.md, "Decode byte budget").
 */
const CONCEALMENT_SECONDS = HOUR / 10;
/** The ASR worker's decode with the server's default limits (60 minutes). */
const OPTIONS = { sampleRate: 16_000, maxSeconds: DEFAULT_LIMITS.maxAudioSeconds };
const BUDGET_MESSAGE = /decodes to more audio than its \d+ bytes can honestly hold/;

function errorOf(result: IsolatedResult): Error {
  expect(result.outcome.ok, 'the decode should fail').to.equal(false);
  return (result.outcome as { error: Error }).error;
}

/** Refused by the byte budget, having decoded no more than its bytes allow (the message says how much). */
function expectBudgetRefusal(result: IsolatedResult, bytes: Uint8Array, sourceRate: number): void {
  const error = errorOf(result);
  expect(error, error.message).to.be.instanceOf(PayloadTooLargeError);
  expect(error.message).to.match(BUDGET_MESSAGE);
  const allowed = Math.floor(Math.max(bytes.length * MAX_FRAMES_PER_INPUT_BYTE, FREE_SECONDS * sourceRate) / sourceRate);
  expect(error.message).to.include(`its ${bytes.length} bytes can honestly hold (over ${allowed} seconds at ${sourceRate} Hz`);
}

describe('decode byte budget: small uploads that claim an hour', function () {
  this.timeout(120_000);
  const isolated = new IsolatedAudio();
  after(() => isolated.close());

  it('refuses a ~9 kB WebM of 2-byte Opus concealment packets claiming 6 minutes (413, the byte budget)', async () => {
    const bytes = webmConcealment(CONCEALMENT_SECONDS);
    expect(bytes.length).to.be.below(10_000);
    expectBudgetRefusal(await isolated.decode16(bytes, OPTIONS, 60_000), bytes, 48_000);
  });

  it('refuses a ~10 kB Ogg Opus of 2-byte concealment packets claiming 6 minutes (413, the byte budget)', async () => {
    const bytes = oggOpusConcealment(CONCEALMENT_SECONDS, opusConcealmentPacket(6), 0.12);
    expect(bytes.length).to.be.below(11_000);
    expectBudgetRefusal(await isolated.decode16(bytes, OPTIONS, 60_000), bytes, 48_000);
  });

  it('refuses Ogg Opus of empty packets (one lacing byte for 20 ms each) claiming 10 minutes (413, the byte budget)', async () => {
    const bytes = oggOpusConcealment(600, new Uint8Array(0));
    expectBudgetRefusal(await isolated.decode16(bytes, OPTIONS, 60_000), bytes, 48_000);
  });

  it('refuses an MP4 whose chunk offsets all point at one small chunk to claim 61 minutes (400: samples overlap)', async () => {
    const bytes = mp4OverlappingChunks(HOUR);
    expect(bytes.length).to.be.below(20_000);
    const error = errorOf(await isolated.decode16(bytes, OPTIONS, 60_000));
    expect(error).to.be.instanceOf(UndecodableAudioError);
    expect(error.message).to.match(/the MP4 sample tables list more sample data than the file holds \(samples overlap\)$/);
  });

  describe('the cheapest variants of other formats', () => {
    it('refuses FLAC of 65,535-sample frames of silence (a dozen bytes each) at 8 kHz mono, claiming an hour in 7 kB (413)', async () => {
      const bytes = flacSilence({ sampleRate: 8000, channels: 1, seconds: HOUR });
      expectBudgetRefusal(await isolated.decode16(bytes, OPTIONS, 60_000), bytes, 8000);
    });

    it('refuses the same at 384 kHz and 8 channels, the costliest per second, past FREE_SECONDS (413)', async () => {
      const bytes = flacSilence({ sampleRate: 384_000, channels: 8, seconds: 60 });
      expectBudgetRefusal(await isolated.decode16(bytes, OPTIONS, 60_000), bytes, 384_000);
    });

    it('ADTS AAC cannot get near the budget: its smallest frame (a 7-byte header and 4 bytes of silence) is 93 samples a byte', async () => {
      const bytes = adtsSilence(120, 48_000);
      const audio = await decodeAudio(bytes, { sampleRate: 16_000, maxSeconds: 3600 });
      expect(audio.samples.length / 16_000).to.be.closeTo(120, 0.1);
      expect((120 * 48_000) / bytes.length).to.be.below(MAX_FRAMES_PER_INPUT_BYTE / 4);
    });

    it('an MP4 of the same silent frames without overlapping samples stays under the budget (4 bytes a frame)', async () => {
      const bytes = mp4OverlappingChunks(60, 48_000, Math.ceil((60 * 48_000) / 1024));
      const audio = await decodeAudio(bytes, { sampleRate: 16_000, maxSeconds: 3600 });
      expect(audio.samples.length / 16_000).to.be.closeTo(60, 0.1);
    });
  });
});

describe('decode byte budget: what real encoders write at their most compact still decodes', function () {
  this.timeout(120_000);
  const SECONDS = 2 * FREE_SECONDS; // past FREE_SECONDS, so the per-byte limit is what applies

  for (const [format, rate] of [
    ['flac', 16_000],
    ['flac', 48_000],
    ['opus', 48_000],
    ['aac', 8000],
  ] as [MediaFormat, number][]) {
    it(`${SECONDS} s of digital silence from our own ${format} encoder at ${rate} Hz`, async () => {
      const encoder = await MediaStreamEncoder.open(format, rate);
      const parts: Uint8Array[] = [];
      for (let second = 0; second < SECONDS; second++) parts.push(await encoder.encode(new Float32Array(rate)));
      parts.push(await encoder.finish());
      const audio = await decodeAudio(Buffer.concat(parts), { sampleRate: 16_000, maxSeconds: 3600 });
      expect(audio.samples.length / 16_000).to.be.closeTo(SECONDS, 0.2);
    });
  }

  it(`${SECONDS} s of digital silence from libvorbis (quality 3, 48 kHz stereo)`, async () => {
    const wasm = await WebAssembly.compile(await readFile(createRequire(import.meta.url).resolve('wasm-media-encoders/wasm/ogg')));
    const encoder = await createEncoder('audio/ogg', wasm);
    encoder.configure({ channels: 2, sampleRate: 48_000, vbrQuality: 3 });
    const parts: Uint8Array[] = [];
    const second = [new Float32Array(48_000), new Float32Array(48_000)];
    for (let i = 0; i < SECONDS; i++) parts.push(encoder.encode(second).slice());
    parts.push(encoder.finalize().slice());
    const audio = await decodeAudio(Buffer.concat(parts), { sampleRate: 16_000, maxSeconds: 3600 });
    expect(audio.samples.length / 16_000).to.be.closeTo(SECONDS, 0.2);
  });

  it(`8 kHz mono MP3 at 8 kbit/s, ${SECONDS} s of it`, async () => {
    const tone = sine(300, 8000, SECONDS, 0.2);
    const audio = await decodeAudio(await encodeMp3({ samples: tone, sampleRate: 8000 }, 8), { sampleRate: 16_000, maxSeconds: 3600 });
    expect(audio.samples.length / 16_000).to.be.closeTo(SECONDS, 0.2);
  });

  for (const frameMs of [20, 60]) {
    it(`libopus voice at 6 kbit/s (${frameMs}-ms frames, Ogg pages of a second): a tone, then ${SECONDS} s of digital silence`, async () => {
      const bytes = oggOpusFrom(6000, frameMs, [sine(220, 48_000, 5, 0.3), new Float32Array(48_000 * SECONDS)]);
      const audio = await decodeAudio(bytes, { sampleRate: 16_000, maxSeconds: 3600 });
      expect(audio.samples.length / 16_000).to.be.closeTo(SECONDS + 5, 0.2);
    });
  }
});

/** Ogg Opus as opusenc writes it: libopus (VOIP, VBR) at `bitrate`, mono 48 kHz, a page per second. */
function oggOpusFrom(bitrate: number, frameMs: number, pieces: Float32Array[]): Buffer {
  const opus = new OpusScript(48_000, 1, OpusScript.Application.VOIP, { wasm: true });
  try {
    opus.setBitrate(bitrate);
    const frame = 48 * frameMs;
    const pcm = new Float32Array(pieces.reduce((total, piece) => total + piece.length, 0));
    pieces.reduce((at, piece) => (pcm.set(piece, at), at + piece.length), 0);
    const head = Buffer.alloc(19);
    head.write('OpusHead');
    head[8] = 1;
    head[9] = 1;
    head.writeUInt16LE(312, 10);
    head.writeUInt32LE(48_000, 12);
    const pages = [oggPage([head], 0, 0x02), oggPage([Buffer.from('OpusTags\0\0\0\0\0\0\0\0')], 1)];
    let packets: Uint8Array[] = [];
    let granule = 0;
    for (let at = 0; at < pcm.length; at += frame) {
      const int16 = Buffer.alloc(frame * 2);
      for (let i = 0; i < frame && at + i < pcm.length; i++) int16.writeInt16LE(Math.round(pcm[at + i]! * 32767), i * 2);
      packets.push(Buffer.from(opus.encode(int16, frame)));
      granule += frame;
      const last = at + frame >= pcm.length;
      if (packets.length * frameMs >= 1000 || last) {
        pages.push(oggPage(packets, pages.length, last ? 0x04 : 0, granule));
        packets = [];
      }
    }
    return Buffer.concat(pages);
  } finally {
    opus.delete();
  }
}
