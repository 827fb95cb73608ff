/**
 * The real Piper voice, when installed (`bash scripts/test-models/piper-joe.sh` or
 * `npm run test-models`); skipped otherwise.
 */
import { existsSync } from 'node:fs';
import { expect } from 'chai';
import { speechBytes } from '../../../src/inference/text-to-speech/speech-bytes.js';
import { createSpeechEncoder } from '../../../src/inference/text-to-speech/speech-encoder.js';
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
