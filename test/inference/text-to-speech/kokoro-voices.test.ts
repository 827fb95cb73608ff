import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { ValidationError } from '../../../src/errors.js';
import type { ManifestEntry } from '../../../src/inference/manifest.js';
import { kokoroEngine } from '../../../src/inference/text-to-speech/kokoro-engine.js';
import { spellWord } from '../../../src/inference/text-to-speech/kokoro-phonemes.js';
import { KokoroVoices, OPENAI_VOICES } from '../../../src/inference/text-to-speech/kokoro-voices.js';
import { SPEECH_FORMATS } from '../../../src/inference/types.js';

const MANIFEST = new URL('../../../models/models.json', import.meta.url).pathname;

describe('Kokoro voices', () => {
  const voices = new KokoroVoices(['af_heart', 'am_adam', 'bf_emma', 'ef_dora', 'jf_alpha', 'zf_xiaobei']);

  it('resolves a voice to its espeak language by the first letter of its name', () => {
    expect(voices.resolve('bf_emma')).to.deep.equal({ name: 'bf_emma', language: { code: 'b', name: 'British English', espeak: 'en' } });
    expect(voices.resolve('ef_dora').language.espeak).to.equal('es');
    expect(voices.resolve(undefined).name).to.equal('af_heart');
  });

  it('lets OpenAI names stand for an installed voice: the namesake, the next choice, else the default', () => {
    expect(new KokoroVoices(['af_alloy', 'af_heart']).resolve('alloy').name).to.equal('af_alloy');
    expect(voices.resolve('alloy').name).to.equal('af_heart');
    expect(voices.resolve('ash').name).to.equal('am_adam');
    expect(voices.resolve('onyx').name).to.equal('af_heart');
  });

  it('refuses Japanese and Chinese voices with the reason, and unknown names with the list', () => {
    expect(() => voices.resolve('jf_alpha')).to.throw(ValidationError, /^voice "jf_alpha" speaks Japanese, which needs a Japanese phonemizer/);
    expect(() => voices.resolve('zf_xiaobei')).to.throw(ValidationError, /speaks Mandarin Chinese/);
    expect(() => voices.resolve('af_bella')).to.throw(ValidationError, /^"voice" must be one of: af_heart, am_adam, bf_emma, ef_dora, alloy, ash/);
    expect(voices.speakable).to.deep.equal(['af_heart', 'am_adam', 'bf_emma', 'ef_dora']);
  });

  it("map OpenAI's names only to voices of Kokoro-82M v1.0 (the catalogue entry's voice files)", () => {
    const entry = (JSON.parse(readFileSync(MANIFEST, 'utf8')).models as ManifestEntry[]).find((model) => model.id === 'kokoro-82m') as ManifestEntry;
    const catalogue = KokoroVoices.of(entry).speakable;
    for (const [name, targets] of Object.entries(OPENAI_VOICES)) {
      for (const target of targets) expect(catalogue, `${name} → ${target}`).to.include(target);
    }
  });

  it('are described in GET /v1/models from the entry files, without loading the model', () => {
    const entry = {
      id: 'k',
      task: 'text-to-speech',
      engine: 'kokoro',
      description: '',
      license: '',
      source: {
        type: 'huggingface',
        repo: 'a/b',
        revision: 'c'.repeat(40),
        files: ['config.json', 'voices/af_nova.bin', 'voices/jf_alpha.bin', 'voices/am_echo.bin'].map((path) => ({ path })),
      },
    } as ManifestEntry;
    const described = kokoroEngine.describe!(entry);
    expect(described).to.deep.include({ formats: [...SPEECH_FORMATS], speed: { min: 0.25, max: 4 }, default_voice: 'af_nova' });
    expect(described.voices).to.deep.equal(['af_nova', 'am_echo', ...Object.keys(OPENAI_VOICES)]);
    expect(described.voice_aliases).to.deep.include({ nova: 'af_nova', echo: 'am_echo', alloy: 'af_nova' });
  });
});

describe('Kokoro phoneme symbols (after misaki 0.9.4 espeak tables)', () => {
  it('writes diphthongs and affricates as one symbol, keeping the stress mark before it', () => {
    expect(spellWord(['h', 'ə', 'l', 'ˈoʊ'], 'us')).to.equal('həlˈO');
    expect(spellWord(['ð', 'ˈeə'], 'gb')).to.equal('ðˈɛː');
    expect(spellWord(['ɡ', 'ˌəʊ'], 'gb')).to.equal('ɡˌQ');
    expect(spellWord(['tʃ', 'ˈeɪ', 'n', 'dʒ'], 'us')).to.equal('ʧˈAnʤ');
    expect(spellWord(['t', 'ˈu', 'd', 'ʊ'], 'other')).to.equal('tˈudʊ');
    expect(spellWord(['ts', 'ˈaɪ'], 'other')).to.equal('ʦˈI');
  });

  it("rewrites English symbols Kokoro's English voices were not trained with", () => {
    expect(spellWord(['b', 'ˈɜː', 'd'], 'us')).to.equal('bˈɜɹd');
    expect(spellWord(['b', 'ˈɜː', 'd'], 'gb')).to.equal('bˈɜːd');
    expect(spellWord(['b', 'ˈɑ', 'ɾ', 'əl'], 'us')).to.equal('bˈɑTᵊl');
    expect(spellWord(['ˈɛ', 'r', 'ɚ'], 'us')).to.equal('ˈɛɹəɹ');
  });
});
