/**
 * The real Piper voice, when installed (`bash scripts/test-models/piper-joe.sh` or
 * `npm run test-models`); skipped otherwise.
 */
import { existsSync } from 'node:fs';
import { expect } from 'chai';
import { speechBytes } from '../../../src/inference/text-to-speech/speech-bytes.js';
import { createSpeechEncoder } from '../../../src/inference/text-to-speech/speech-encoder.js';
import { piecePhonemeLimit } from '../../../src/inference/text-to-speech/phoneme-pieces.js';
import { PiperPhonemizer } from '../../../src/inference/text-to-speech/piper-phonemizer.js';
import { WorkerSynthesizer } from '../../../src/inference/text-to-speech/worker-synthesizer.js';
import { abortEachAfter, coresBusyOver, cpuUntilIdle } from '../cpu-load.js';

const MODEL_DIR = new URL('../../../models/piper-en_US-joe-medium/', import.meta.url).pathname;

describe('piper-en_US-joe-medium (real weights)', () => {
  let synthesizer: WorkerSynthesizer;
  before(async function () {
    if (!existsSync(`${MODEL_DIR}.installed.json`)) {
      this.skip(); // not installed: run `npm run test-models` to include this test
    }
    synthesizer = await WorkerSynthesizer.spawn({ engine: 'piper', modelDir: MODEL_DIR }, 'piper-en_US-joe-medium');
  });
  after(() => synthesizer?.dispose());

  it('speaks a sentence at 22.05 kHz with a plausible length', async () => {
    let samples = 0;
    for await (const chunk of synthesizer.synthesize('The birch canoe slid on the smooth planks.')) {
      expect(chunk.sampleRate).to.equal(22050);
      samples += chunk.samples.length;
    }
    // ~8 words: about 1.5–4 s of speech.
    expect(samples / 22050).to.be.within(1.5, 4);
  });

  it('speaks "1% 1% …" at speed 0.25 in pieces of bounded phonemes, as long as the text at that speed', async function () {
    this.timeout(60_000);
    // 10 × "one percent": ~5.4 s at speed 1, 4× that at 0.25, one sentence (no first-piece cut: every word is a number).
    const text = Array.from({ length: 10 }, () => '1%').join(' ');
    const limit = piecePhonemeLimit(0.25);
    // The seam: the pieces the phonemizer worker makes of it (the same code, in this thread).
    const phonemizer = await PiperPhonemizer.load(`${MODEL_DIR}en_US-joe-medium.onnx.json`);
    const pieces = await phonemizer.pieces(text, limit);
    expect(pieces.length).to.be.at.least(3);
    // Piper's ids: BOS, a pad, then each phoneme with a pad after it, then EOS.
    for (const ids of pieces) expect((ids.length - 3) / 2).to.be.at.most(limit);

    const seconds: number[] = [];
    for await (const chunk of synthesizer.synthesize(text, { speed: 0.25 })) {
      expect(chunk.samples.every(Number.isFinite)).to.equal(true);
      const peak = chunk.samples.reduce((top, sample) => Math.max(top, Math.abs(sample)), 0);
      expect(peak).to.be.within(0.1, 1 + 1e-5);
      seconds.push(chunk.samples.length / chunk.sampleRate);
    }
    expect(seconds).to.have.length(pieces.length);
    // A piece of `limit` phonemes at 0.25 holds what 4 × `limit` do at speed 1: under 15 s (docs/benchmarks.md).
    for (const piece of seconds) expect(piece).to.be.below(15);
    const total = seconds.reduce((sum, piece) => sum + piece, 0);
    expect(total).to.be.within(14, 32);
  });

  it('drops the work of aborted requests: they reject at once, a short request then answers and the CPU goes idle', async function () {
    this.timeout(120_000);
    const encoder = createSpeechEncoder({ idleMs: 60_000 });
    const long = Array.from({ length: 40 }, (_, i) => `Sentence number ${i + 1} keeps this voice busy for quite a while longer.`).join(' ');
    const controllers = Array.from({ length: 8 }, () => new AbortController());
    // Eight clients: four read the sentences themselves, the others through speechBytes (MP3 and WAV).
    const requests = controllers.map(async ({ signal }, index) => {
      if (index < 4) {
        for await (const _chunk of synthesizer.synthesize(long, { signal }));
      } else {
        for await (const _bytes of speechBytes(synthesizer, long, { format: index % 2 ? 'mp3' : 'wav', encoder, signal }));
      }
    });
    const outcomes = requests.map((request) =>
      request.then(
        () => 'finished',
        (error: unknown) => error,
      ),
    );
    await abortEachAfter(300, controllers, outcomes);

    // What still runs is at most the sentence each worker was busy with; without cancellation
    // the eight requests would have minutes of synthesis left.
    const { cpuSeconds, settled } = await cpuUntilIdle();
    const started = Date.now();
    let samples = 0;
    for await (const chunk of synthesizer.synthesize('Hello.')) samples += chunk.samples.length;
    const shortMs = Date.now() - started;
    const cores = await coresBusyOver(2_000);
    console.log(`      after the aborts: ${cpuSeconds.toFixed(2)} CPU-s until idle; "Hello." then took ${shortMs} ms; then ${cores.toFixed(3)} cores over 2 s`);
    expect(settled, 'went idle').to.equal(true);
    expect(cpuSeconds).to.be.below(3);
    expect(samples).to.be.greaterThan(0);
    expect(shortMs).to.be.below(10_000);
    expect(cores).to.be.below(0.3);
    await encoder.dispose();
  });
});
