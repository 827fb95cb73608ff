import { expect } from 'chai';
import { MPEGDecoder } from 'mpg123-decoder';
import type { PcmAudio } from '../../../src/audio/pcm-audio.js';
import type { PcmSynthesizer, SpeechPiece } from '../../../src/inference/types.js';
import { speechBytes } from '../../../src/inference/text-to-speech/speech-bytes.js';
import { createSpeechEncoder, type SpeechEncoder } from '../../../src/inference/text-to-speech/speech-encoder.js';

/**
 * Stands in for a model so this file tests encoding and streaming only (the engines have their own
 * tests). `marksLast`: says of each piece whether it is the last, as WorkerSynthesizer does.
 */
function toneSynthesizer(sentenceSeconds: number[], failAfter = Infinity, marksLast = false): PcmSynthesizer {
  const sampleRate = 22050;
  return {
    sampleRate,
    async *synthesize(): AsyncGenerator<SpeechPiece> {
      for (const [index, seconds] of sentenceSeconds.entries()) {
        if (index >= failAfter) throw new Error('synthesis failed');
        const samples = new Float32Array(Math.round(seconds * sampleRate));
        for (let i = 0; i < samples.length; i++) samples[i] = 0.4 * Math.sin((2 * Math.PI * 300 * i) / sampleRate);
        yield marksLast ? { samples, sampleRate, last: index === sentenceSeconds.length - 1 } : { samples, sampleRate };
      }
    },
    async dispose() {},
  };
}

async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const chunk of chunks) out.push(chunk);
  return out;
}

describe('speechBytes', () => {
  let encoder: SpeechEncoder;
  before(() => {
    encoder = createSpeechEncoder({ idleMs: 50 });
  });
  after(() => encoder.dispose());

  it('streams MP3 sentence by sentence as one valid stream of the total duration', async () => {
    const chunks = await collect(speechBytes(toneSynthesizer([1, 0.5, 2]), 'ignored', { format: 'mp3', encoder }));
    expect(chunks.length).to.be.at.least(3);
    const decoder = new MPEGDecoder();
    await decoder.ready;
    const decoded = decoder.decode(Buffer.concat(chunks));
    decoder.free();
    expect(decoded.errors).to.have.length(0);
    expect(decoded.sampleRate).to.equal(22050);
    expect(decoded.samplesDecoded / decoded.sampleRate).to.be.closeTo(3.5, 0.11);
  });

  it('refuses FLAC (held whole) past its maximum duration with 413 before any byte, and streams the other formats past it', async () => {
    const tooLong = speechBytes(toneSynthesizer([1, 1, 1]), 'ignored', { format: 'flac', encoder, maxFlacSeconds: 2.5 });
    const error = await collect(tooLong).catch((caught: unknown) => caught);
    expect(error).to.have.property('status', 413);
    expect((error as Error).message).to.match(/FLAC answer \(sent whole\).*mp3, opus, aac, wav or pcm/);
    expect(await collect(speechBytes(toneSynthesizer([1, 1]), 'ignored', { format: 'flac', encoder, maxFlacSeconds: 2.5 }))).to.have.length(1);
    expect(await collect(speechBytes(toneSynthesizer([1, 1, 1]), 'ignored', { format: 'opus', encoder, maxFlacSeconds: 2.5 }))).to.not.be.empty;
  });

  it('sends the head of the first piece ahead of the rest of it', async () => {
    const chunks = await collect(speechBytes(toneSynthesizer([2, 1]), 'ignored', { format: 'mp3', encoder }));
    const decoder = new MPEGDecoder();
    await decoder.ready;
    const head = decoder.decode(chunks[0]!);
    decoder.free();
    // A fraction of a second (LAME holds back its last frames until more audio comes), not 2 s.
    expect(head.samplesDecoded / 22050)
      .to.be.greaterThan(0)
      .and.lessThan(0.3);
  });

  it('produces WAV in one piece with the total length in its header', async () => {
    const chunks = await collect(speechBytes(toneSynthesizer([1, 0.5]), 'ignored', { format: 'wav', encoder }));
    expect(chunks).to.have.length(1);
    const view = new DataView(chunks[0]!.buffer, chunks[0]!.byteOffset);
    expect(view.getUint32(24, true)).to.equal(22050);
    expect(view.getUint32(40, true)).to.equal(Math.round(1.5 * 22050) * 2);
  });

  it('produces a whole WAV when the first piece is said to be the last', async () => {
    const chunks = await collect(speechBytes(toneSynthesizer([1], Infinity, true), 'ignored', { format: 'wav', encoder }));
    expect(chunks).to.have.length(1);
    expect(new DataView(chunks[0]!.buffer, chunks[0]!.byteOffset).getUint32(40, true)).to.equal(22050 * 2);
  });

  it('streams WAV piece by piece behind a header of unknown length when more pieces follow', async () => {
    const chunks = await collect(speechBytes(toneSynthesizer([1, 0.5, 2], Infinity, true), 'ignored', { format: 'wav', encoder }));
    expect(chunks.length).to.be.at.least(3);
    // The header leaves with the first audio, never alone (errors before it can still be a 400).
    expect(chunks[0]!.length).to.equal(44 + 22050 * 2);
    const wav = Buffer.concat(chunks);
    expect(wav.subarray(0, 4).toString('ascii')).to.equal('RIFF');
    expect(wav.readUInt32LE(4)).to.equal(0xffffffff);
    expect(wav.readUInt32LE(24)).to.equal(22050);
    expect(wav.readUInt32LE(40)).to.equal(0xffffffff);
    expect(wav.length - 44).to.equal(Math.round(3.5 * 22050) * 2);
    // The same samples as a whole WAV of the same speech.
    const whole = Buffer.concat(await collect(speechBytes(toneSynthesizer([1, 0.5, 2]), 'ignored', { format: 'wav', encoder })));
    expect(wav.subarray(44).equals(whole.subarray(44))).to.equal(true);
  });

  it('streams WAV at a requested sample rate', async () => {
    const chunks = await collect(speechBytes(toneSynthesizer([1, 1], Infinity, true), 'ignored', { format: 'wav', encoder, sampleRate: 16000 }));
    const wav = Buffer.concat(chunks);
    expect(wav.readUInt32LE(24)).to.equal(16000);
    expect((wav.length - 44) / 2 / 16000).to.be.closeTo(2, 0.01);
  });

  it('passes a synthesis failure on to the consumer after the audio already produced', async () => {
    const received: Uint8Array[] = [];
    let error: Error | undefined;
    try {
      for await (const chunk of speechBytes(toneSynthesizer([1, 1, 1], 1), 'x', { format: 'mp3', encoder })) received.push(chunk);
    } catch (caught) {
      error = caught as Error;
    }
    expect(received.length).to.be.greaterThan(0);
    expect(error?.message).to.equal('synthesis failed');
  });

  it('restarts its worker after being idle', async () => {
    await collect(speechBytes(toneSynthesizer([0.2]), 'x', { format: 'mp3', encoder }));
    await new Promise((resolve) => setTimeout(resolve, 150));
    const chunks = await collect(speechBytes(toneSynthesizer([0.2]), 'x', { format: 'mp3', encoder }));
    expect(Buffer.concat(chunks).length).to.be.greaterThan(0);
  });

  describe('cancellation', () => {
    /**
     * A synthesizer whose every sentence takes `sentenceMs` unless its signal aborts first (as
     * WorkerSynthesizer's calls do); it records the signal it was given.
     */
    function slowSynthesizer(sentences: number, sentenceMs: number) {
      const seen: { signal?: AbortSignal; spoken: number } = { spoken: 0 };
      const synthesizer: PcmSynthesizer = {
        sampleRate: 22050,
        async *synthesize(_text, options = {}): AsyncGenerator<PcmAudio> {
          seen.signal = options.signal;
          for (let index = 0; index < sentences; index++) {
            await new Promise<void>((resolve, reject) => {
              // Aborted already (the encoder thread was slow to start on a loaded machine): as a worker call would.
              if (options.signal?.aborted) return reject(options.signal.reason);
              const timer = setTimeout(resolve, index === 0 ? 0 : sentenceMs);
              options.signal?.addEventListener('abort', () => (clearTimeout(timer), reject(options.signal?.reason)), { once: true });
            });
            seen.spoken++;
            yield { samples: new Float32Array(2205).fill(0.1), sampleRate: 22050 };
          }
        },
        async dispose() {},
      };
      return { synthesizer, seen };
    }

    for (const format of ['mp3', 'wav'] as const) {
      it(`${format}: rejects with the request signal's reason and aborts the synthesizer's signal`, async () => {
        const { synthesizer, seen } = slowSynthesizer(10, 10_000);
        const controller = new AbortController();
        const reason = new Error('client went away');
        setTimeout(() => controller.abort(reason), 50);
        const started = Date.now();
        const error = await collect(speechBytes(synthesizer, 'x', { format, encoder, signal: controller.signal })).catch((caught: unknown) => caught);
        expect(error).to.equal(reason);
        expect(Date.now() - started).to.be.below(5_000);
        expect(seen.signal?.aborted).to.equal(true);
      });
    }

    it('stops the synthesizer when the consumer stops reading (return), without waiting for the next sentence', async () => {
      const { synthesizer, seen } = slowSynthesizer(10, 10_000);
      const started = Date.now();
      for await (const _chunk of speechBytes(synthesizer, 'x', { format: 'mp3', encoder })) break;
      expect(Date.now() - started).to.be.below(5_000);
      expect(seen.signal?.aborted).to.equal(true);
      expect(seen.spoken).to.equal(1);
    });
  });
});
