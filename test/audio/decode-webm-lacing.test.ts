/**
 * Matroska block lacing (several frames in one block: Xiph, EBML or fixed-size sizes), which
 * MediaRecorder does not write but other muxers may: WebM files built here from Opus frames
 * encoded by libopus (opusscript), each decoding to the same second of 440 Hz.
 */
import { expect } from 'chai';
import OpusScript from 'opusscript';
import { decodeAudio } from '../../src/audio/decode-audio.js';
import { dominantFrequency, sine } from './audio-test-helpers.js';

const FRAME = 960; // 20 ms at 48 kHz

/** One second of 440 Hz as 50 Opus frames; constant bitrate when `cbr` (equal sizes, for fixed lacing). */
function opusFrames(cbr: boolean): Buffer[] {
  const opus = new OpusScript(48000, 1, OpusScript.Application.AUDIO, { wasm: true });
  try {
    opus.setBitrate(32000);
    if (cbr) opus.encoderCTL(4006, 0); // OPUS_SET_VBR(0)
    const pcm = sine(440, 48000, 1, 0.3);
    const frames: Buffer[] = [];
    for (let at = 0; at < pcm.length; at += FRAME) {
      const int16 = Buffer.alloc(FRAME * 2);
      for (let i = 0; i < FRAME; i++) int16.writeInt16LE(Math.round(pcm[at + i]! * 32767), i * 2);
      frames.push(Buffer.from(opus.encode(int16, FRAME)));
    }
    return frames;
  } finally {
    opus.delete();
  }
}

/** An EBML element: id bytes, an 8-byte size (or unknown), the body. */
function element(id: number[], body: Buffer | Buffer[], unknownSize = false): Buffer {
  const data = Buffer.isBuffer(body) ? body : Buffer.concat(body);
  const size = Buffer.alloc(8);
  if (unknownSize) size.set([0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
  else size.writeBigUInt64BE(BigInt(data.length) | (1n << 56n));
  return Buffer.concat([Buffer.from(id), size, data]);
}
const uint = (id: number[], value: number) => element(id, Buffer.from([value]));

/** EBML's variable-length unsigned integer in `length` bytes. */
function vint(value: number, length: number): Buffer {
  const out = Buffer.alloc(length);
  let rest = value;
  for (let i = length - 1; i >= 0; i--) {
    out[i] = rest & 0xff;
    rest = Math.floor(rest / 256);
  }
  out[0]! |= 0x80 >> (length - 1);
  return out;
}

type Lacing = 'none' | 'xiph' | 'ebml' | 'fixed';

function block(frames: Buffer[], lacing: Lacing): Buffer {
  const flags = { none: 0x80, xiph: 0x82, fixed: 0x84, ebml: 0x86 }[lacing];
  const header = Buffer.from([0x81, 0x00, 0x00, flags]); // track 1, timecode 0
  if (lacing === 'none') return element([0xa3], [header, frames[0]!]);
  const sizes: Buffer[] = [Buffer.from([frames.length - 1])];
  const laced = frames.slice(0, -1);
  if (lacing === 'xiph') {
    for (const frame of laced) sizes.push(Buffer.from([...new Array(Math.floor(frame.length / 255)).fill(255), frame.length % 255]));
  } else if (lacing === 'ebml') {
    laced.forEach((frame, i) => {
      // The first size plainly, then signed differences (bias 2^(7·2−1) − 1 in 2 bytes).
      sizes.push(i === 0 ? vint(frame.length, 2) : vint(frame.length - laced[i - 1]!.length + 8191, 2));
    });
  }
  return element([0xa3], [header, ...sizes, ...frames]);
}

function webm(frames: Buffer[], lacing: Lacing, perBlock: number): Buffer {
  const head = Buffer.alloc(19);
  head.write('OpusHead');
  head[8] = 1;
  head[9] = 1;
  head.writeUInt16LE(312, 10);
  head.writeUInt32LE(48000, 12);
  const track = element(
    [0xae],
    [uint([0xd7], 1), uint([0x83], 2), element([0x86], Buffer.from('A_OPUS')), element([0x63, 0xa2], head), element([0xe1], uint([0x9f], 1))],
  );
  const blocks: Buffer[] = [];
  for (let i = 0; i < frames.length; i += perBlock) blocks.push(block(frames.slice(i, i + perBlock), lacing));
  return Buffer.concat([
    element([0x1a, 0x45, 0xdf, 0xa3], element([0x42, 0x82], Buffer.from('webm'))),
    element([0x18, 0x53, 0x80, 0x67], [element([0x16, 0x54, 0xae, 0x6b], track), element([0x1f, 0x43, 0xb6, 0x75], [uint([0xe7], 0), ...blocks], true)], true),
  ]);
}

describe('decodeAudio: WebM block lacing', () => {
  const cases: [Lacing, number, boolean][] = [
    ['none', 1, false],
    ['xiph', 5, false],
    ['ebml', 5, false],
    ['fixed', 5, true],
  ];
  for (const [lacing, perBlock, cbr] of cases) {
    it(`${lacing} lacing (${perBlock} frames a block) decodes to the second of 440 Hz`, async () => {
      const frames = opusFrames(cbr);
      if (lacing === 'fixed') expect(new Set(frames.map((frame) => frame.length)).size, 'CBR frames of one size').to.equal(1);
      const audio = await decodeAudio(webm(frames, lacing, perBlock), { sampleRate: 16000, maxSeconds: 10 });
      // 50 frames of 20 ms, less the 312-sample pre-skip.
      expect(audio.samples.length / 16000).to.be.closeTo(1 - 312 / 48000, 0.002);
      expect(dominantFrequency(audio.samples.subarray(1600, 14400), 16000)).to.be.closeTo(440, 10);
    });
  }

  it('refuses a laced block whose sizes run past it', async () => {
    const frames = opusFrames(false);
    const bytes = webm(frames, 'xiph', 5);
    // The first block's first Xiph size byte (after its 4-byte header and the frame count).
    const at = bytes.indexOf(Buffer.from([0x81, 0x00, 0x00, 0x82])) + 5;
    bytes[at] = 255;
    bytes[at + 1] = 255;
    const error = await decodeAudio(bytes, { sampleRate: 16000, maxSeconds: 10 }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).to.match(/WebM data is corrupt|could not decode/);
  });
});
