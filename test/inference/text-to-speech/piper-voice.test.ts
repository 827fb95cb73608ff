import { expect } from 'chai';
import { ValidationError } from '../../../src/errors.js';
import { PiperPhonemizer } from '../../../src/inference/text-to-speech/piper-phonemizer.js';
import { PiperVoice } from '../../../src/inference/text-to-speech/piper-voice.js';

const FIXTURE_DIR = new URL('../../fixtures/models/piper-random/', import.meta.url).pathname;

describe('PiperVoice (random-weight fixture voice)', () => {
  let voice: PiperVoice;
  before(async () => {
    voice = await PiperVoice.load(FIXTURE_DIR, { threads: 1 });
  });
  after(() => voice.dispose());

  it('takes its sample rate from the .onnx.json', () => {
    expect(voice.sampleRate).to.equal(16000);
  });

  it('synthesises a sentence into peak-normalised samples of plausible length', async () => {
    const samples = await voice.synthesize('The birch canoe slid on the smooth planks.');
    const seconds = samples.length / voice.sampleRate;
    expect(seconds).to.be.within(0.3, 15);
    const peak = samples.reduce((max, sample) => Math.max(max, Math.abs(sample)), 0);
    expect(peak).to.be.closeTo(1, 1e-5);
  });

  it('is shorter at speed 4 (length_scale / speed)', async () => {
    const text = 'Glue the sheet to the dark blue background, then rest for a while.';
    const normal = await voice.synthesize(text);
    const fast = await voice.synthesize(text, { speed: 4 });
    expect(fast.length).to.be.lessThan(normal.length);
  });

  it('returns no samples for text without words', async () => {
    expect((await voice.synthesize('...')).length).to.equal(0);
  });

  it('accepts any voice name for a single-speaker voice', () => {
    expect(() => voice.checkOptions({ voice: 'alloy' })).not.to.throw();
    expect(voice.speakerId('alloy')).to.equal(0);
  });

  it('rejects a missing .onnx folder with a clear error', async () => {
    let error: Error | undefined;
    await PiperVoice.load('/nonexistent-voice-dir').catch((caught: Error) => (error = caught));
    expect(error?.message).to.match(/ENOENT|nonexistent/);
    expect(error).not.to.be.instanceOf(ValidationError);
  });
});

describe('PiperPhonemizer and PiperVoice without espeak (the two-worker split)', () => {
  it('turns a sentence into Piper ids that the ORT-only voice synthesises', async () => {
    const phonemizer = await PiperPhonemizer.load(`${FIXTURE_DIR}piper-random.onnx.json`);
    const ids = await phonemizer.ids('Hello, world.');
    // "həlˈoʊ, wˈɜːld." → ^ _ h _ ə _ l _ ˈ _ o _ ʊ _ , _ (space) _ w _ … _ . _ $
    expect(ids.slice(0, 4)).to.deep.equal([1, 0, 20, 0]);
    expect(ids.slice(-3)).to.deep.equal([10, 0, 2]);
    const voice = await PiperVoice.load(FIXTURE_DIR, { threads: 1, phonemize: false });
    try {
      expect((await voice.synthesizeIds(ids)).length).to.be.greaterThan(0);
      let error: Error | undefined;
      await voice.synthesize('Hello.').catch((caught: Error) => (error = caught));
      expect(error?.message).to.match(/without a phonemizer/);
    } finally {
      await voice.dispose();
    }
  });
});
