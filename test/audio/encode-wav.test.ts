import { expect } from 'chai';
import { encodeWav } from '../../src/audio/encode-wav.js';

describe('encodeWav', () => {
  it('writes a 16-bit mono PCM RIFF header with the right sizes and rate', () => {
    const bytes = encodeWav({ samples: new Float32Array(1000), sampleRate: 22050 });
    const view = new DataView(bytes.buffer);
    const ascii = (offset: number) => String.fromCharCode(...bytes.subarray(offset, offset + 4));
    expect([ascii(0), ascii(8), ascii(12), ascii(36)]).to.deep.equal(['RIFF', 'WAVE', 'fmt ', 'data']);
    expect(view.getUint32(4, true)).to.equal(bytes.length - 8);
    expect(view.getUint16(20, true)).to.equal(1); // PCM
    expect(view.getUint16(22, true)).to.equal(1); // mono
    expect(view.getUint32(24, true)).to.equal(22050);
    expect(view.getUint32(28, true)).to.equal(44100);
    expect(view.getUint16(34, true)).to.equal(16);
    expect(view.getUint32(40, true)).to.equal(2000);
    expect(bytes.length).to.equal(44 + 2000);
  });

  it('clips out-of-range samples and turns NaN into silence', () => {
    const bytes = encodeWav({ samples: Float32Array.of(0, 1, -1, 2, -2, Number.NaN, 0.5), sampleRate: 16000 });
    const view = new DataView(bytes.buffer, 44);
    const values = Array.from({ length: 7 }, (_, i) => view.getInt16(i * 2, true));
    expect(values).to.deep.equal([0, 32767, -32768, 32767, -32768, 0, 16384]);
  });
});
