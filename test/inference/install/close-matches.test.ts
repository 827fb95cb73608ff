import { expect } from 'chai';
import { closeMatches, editDistance } from '../../../src/inference/install/close-matches.js';
import { unknownIdsLine } from '../../../src/inference/install/download-models-command.js';

const IDS = [
  'whisper-tiny.en',
  'whisper-base',
  'whisper-small',
  'whisper-large-v3',
  'whisper-large-v3-turbo',
  'distil-large-v3',
  'nllb-200-distilled-600M',
  'piper-en_US-joe-medium',
  'piper-en_US-amy-medium',
  'opus-mt-en-es',
];

describe('closeMatches (download-models "did you mean")', () => {
  it('counts edits as Levenshtein does', () => {
    expect(editDistance('kitten', 'sitting')).to.equal(3);
    expect(editDistance('', 'abc')).to.equal(3);
    expect(editDistance('same', 'same')).to.equal(0);
  });

  it('puts ids that contain the query first, then the nearest by edits', () => {
    expect(closeMatches('whisper-large', IDS)).to.deep.equal(['whisper-large-v3', 'whisper-large-v3-turbo', 'whisper-base']);
    expect(closeMatches('nllb', IDS)).to.deep.equal(['nllb-200-distilled-600M']);
  });

  it('finds a typo, ignores case, and offers at most five', () => {
    expect(closeMatches('pipper-en_us-joe-medium', IDS)[0]).to.equal('piper-en_US-joe-medium');
    expect(closeMatches('e', IDS)).to.have.length(5);
  });

  it('offers nothing for an id far from every one', () => {
    expect(closeMatches('zzzzzzz', IDS)).to.deep.equal([]);
  });

  it('makes one short error line that points to --list, whatever the size of the catalogue', () => {
    const many = [...IDS, ...Array.from({ length: 300 }, (_, i) => `piper-xx_XX-voice${i}-medium`)];
    const line = unknownIdsLine(['whisper-large'], many);
    expect(line).to.equal(
      'error: unknown model id whisper-large (did you mean whisper-large-v3, whisper-large-v3-turbo, whisper-base?); every model: npm run download-models -- --list',
    );
    expect(unknownIdsLine(['zzzzzzz', 'nllb'], many)).to.equal(
      'error: unknown model ids zzzzzzz, nllb (did you mean nllb-200-distilled-600M?); every model: npm run download-models -- --list',
    );
  });
});
