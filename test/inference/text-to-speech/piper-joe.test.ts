/**
 * The real Piper voice, when installed (`bash scripts/test-models/piper-joe.sh` or
 * `npm run test-models`); skipped otherwise.
 */
import { existsSync } from 'node:fs';
import { expect } from 'chai';
import { WorkerSynthesizer } from '../../../src/inference/text-to-speech/worker-synthesizer.js';

const MODEL_DIR = new URL('../../../models/piper-en_US-joe-medium/', import.meta.url).pathname;

describe('piper-en_US-joe-medium (real weights)', function () {
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
});
