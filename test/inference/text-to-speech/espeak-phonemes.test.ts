import { expect } from 'chai';
import { espeakPhonemes } from '../../../src/inference/text-to-speech/espeak-phonemes.js';

describe('espeakPhonemes (espeak-ng WASM)', () => {
  it('gives Piper-style IPA with stress marks and the clause punctuation put back', async () => {
    // Piper 1.x (piper-tts) gives "həlˈoʊ, wˈɜːld." for the same text with the en-us voice.
    expect(await espeakPhonemes('Hello, world.', 'en-us')).to.equal('həlˈoʊ, wˈɜːld.');
  });

  it('keeps a question mark and defaults a missing final mark to a period', async () => {
    expect(await espeakPhonemes('How are you?', 'en-us')).to.match(/juː\?$/);
    expect(await espeakPhonemes('hello', 'en-us')).to.equal('həlˈoʊ.');
  });

  it('returns nothing for text without words', async () => {
    expect(await espeakPhonemes('...', 'en-us')).to.equal('');
  });
});
