import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { KokoroPhonemizer } from '../../../src/inference/text-to-speech/kokoro-phonemizer.js';
import { chunkPhonemeIds, KokoroTokenizer, MAX_PHONEME_IDS, styleRow } from '../../../src/inference/text-to-speech/kokoro-tokenizer.js';

// The fixture's tokenizer.json is byte for byte the hub repo's (scripts/fixtures/kokoro_fixture.py checks its SHA-256).
const FIXTURE = new URL('../../fixtures/models/kokoro-random/', import.meta.url).pathname;
const tokenizer = KokoroTokenizer.parse(JSON.parse(readFileSync(`${FIXTURE}tokenizer.json`, 'utf8')));

describe('Kokoro phonemes → ids (the hub repo tokenizer.json)', () => {
  it('maps each phoneme character to its id between two pads, dropping characters outside the vocabulary', () => {
    // Ids of Kokoro-82M's config vocab: h 50, ə 83, l 54, ˈ 156, O 31, "," 3, space 16, w 65, ɜ 87, ɹ 123, d 46, "!" 5; "$" pads as 0.
    expect(tokenizer.ids('həlˈO, wˈɜɹld!')).to.deep.equal([0, 50, 83, 54, 156, 31, 3, 16, 65, 156, 87, 123, 54, 46, 5, 0]);
    expect(tokenizer.ids('h§ə✓')).to.deep.equal([0, 50, 83, 0]);
    expect(tokenizer.ids('')).to.deep.equal([0, 0]);
    // A combining tilde (French and Portuguese nasals) is a symbol of its own.
    expect(tokenizer.ids('ɑ̃')).to.deep.equal([0, 69, 17, 0]);
  });

  it('phonemises a sentence in the voice language and tokenises it', async function () {
    this.timeout(30_000);
    const phonemizer = await KokoroPhonemizer.load(FIXTURE);
    // espeak: h_ˈaɪ → hˈI (misaki's single symbol for the diphthong), then the text's full stop.
    expect(await phonemizer.ids('Hi.', 'af_heart')).to.deep.equal([0, 50, 156, 25, 4, 0]);
    expect(await phonemizer.ids('Hi.', 'alloy')).to.deep.equal([0, 50, 156, 25, 4, 0]);
    // British English: "go" is ɡˈQ (əʊ) rather than American ɡˈO (oʊ).
    expect(await phonemizer.ids('Go.', 'bf_emma')).to.deep.equal([0, 92, 156, 33, 4, 0]);
    expect(await phonemizer.ids('Go.', 'am_adam')).to.deep.equal([0, 92, 156, 31, 4, 0]);
  });
});

describe('Kokoro runs longer than the context', () => {
  const breaks = { clause: new Set([3, 4]), word: new Set([16]) };

  it('keeps a run that fits, and cuts a longer one after its last pause in reach, each part padded', () => {
    expect(chunkPhonemeIds([0, 50, 16, 51, 0], breaks)).to.deep.equal([[0, 50, 16, 51, 0]]);
    const words = Array.from({ length: 30 }, (_, i) => (i % 5 === 4 ? 16 : 50));
    const withComma = [...words.slice(0, 12), 3, ...words.slice(13)];
    expect(chunkPhonemeIds([0, ...withComma, 0], breaks, 20)).to.deep.equal([
      [0, ...withComma.slice(0, 13), 0],
      [0, ...withComma.slice(13), 0],
    ]);
    // No comma: the last space in reach; no space either: a hard cut at the limit.
    expect(chunkPhonemeIds([0, ...words, 0], breaks, 20).map((chunk) => chunk.length - 2)).to.deep.equal([20, 10]);
    expect(chunkPhonemeIds([0, ...Array(45).fill(50), 0], breaks, 20).map((chunk) => chunk.length - 2)).to.deep.equal([20, 20, 5]);
    expect(MAX_PHONEME_IDS).to.equal(510);
  });
});

describe('Kokoro voice row for a run', () => {
  // 510 rows of 256: row r holds the value r everywhere.
  const voice = Float32Array.from({ length: 510 * 256 }, (_, i) => Math.floor(i / 256));

  it('takes row n − 1 for n phoneme ids, as hexgrad kokoro does, within the 510 rows', () => {
    expect(styleRow(voice, 1)[0]).to.equal(0);
    expect(styleRow(voice, 12)[0]).to.equal(11);
    expect(styleRow(voice, 12)).to.have.length(256);
    expect(styleRow(voice, 510)[255]).to.equal(509);
    expect(styleRow(voice, 900)[0]).to.equal(509);
    expect(styleRow(voice, 0)[0]).to.equal(0);
  });
});
