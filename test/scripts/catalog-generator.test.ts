/** scripts/catalog/: the Piper voices generator on a hand-written voices.json of the published shape, and the hub tables. */
import { expect } from 'chai';
import { parseManifest } from '../../src/inference/manifest.js';
import { catalogText } from '../../scripts/catalog/catalog-file.js';
import { hubCatalogs, OPUS_MT_PAIRS } from '../../scripts/catalog/hub-models.js';
import { PIPER_LICENSE, piperVoiceEntries, piperVoiceId, type PiperVoice } from '../../scripts/catalog/piper-voices.js';

const file = (size_bytes: number, md5: string) => ({ size_bytes, md5_digest: md5.repeat(32 / md5.length) });

/** Two voices as rhasspy/piper-voices' voices.json lists them: one single-speaker, one with named speakers. */
const SAMPLE: Record<string, PiperVoice> = {
  'pt_PT-tugão-medium': {
    key: 'pt_PT-tugão-medium',
    name: 'tugão',
    language: { code: 'pt_PT', family: 'pt', region: 'PT', name_native: 'Português', name_english: 'Portuguese', country_english: 'Portugal' },
    quality: 'medium',
    num_speakers: 1,
    speaker_id_map: {},
    files: {
      'pt/pt_PT/tugão/medium/pt_PT-tugão-medium.onnx': file(63201294, 'a1'),
      'pt/pt_PT/tugão/medium/pt_PT-tugão-medium.onnx.json': file(4890, 'b2'),
      'pt/pt_PT/tugão/medium/MODEL_CARD': file(280, 'c3'),
    },
    aliases: [],
  },
  'en_US-arctic-medium': {
    key: 'en_US-arctic-medium',
    name: 'arctic',
    language: { code: 'en_US', family: 'en', region: 'US', name_native: 'English', name_english: 'English', country_english: 'United States' },
    quality: 'medium',
    num_speakers: 3,
    speaker_id_map: { slt: 2, awb: 0, rms: 1 },
    files: {
      'en/en_US/arctic/medium/en_US-arctic-medium.onnx': file(76733615, 'd4'),
      'en/en_US/arctic/medium/en_US-arctic-medium.onnx.json': file(5940, 'e5'),
      'en/en_US/arctic/medium/MODEL_CARD': file(301, 'f6'),
    },
    aliases: [],
  },
};

describe('scripts/catalog: the generated catalogue', () => {
  describe('Piper voices from voices.json', () => {
    const entries = piperVoiceEntries(SAMPLE, { repo: 'rhasspy/piper-voices', revision: 'main', datasetLicences: { 'en_US-arctic-medium': 'CC0' } });

    it('makes one text-to-speech entry per voice, in key order, with a plain id', () => {
      expect(entries.map((entry) => entry.id)).to.deep.equal(['piper-en_US-arctic-medium', 'piper-pt_PT-tugao-medium']);
      expect(piperVoiceId('pt_PT-tugão-medium')).to.equal('piper-pt_PT-tugao-medium');
      expect(entries.every((entry) => entry.task === 'text-to-speech' && entry.engine === 'piper')).to.equal(true);
    });

    it('installs the voice, its config and its MODEL_CARD flat, each sized and pinned by md5', () => {
      const tugao = entries[1]!;
      expect(tugao.source).to.deep.equal({
        type: 'huggingface',
        repo: 'rhasspy/piper-voices',
        revision: 'main',
        files: [
          { path: 'pt/pt_PT/tugão/medium/pt_PT-tugão-medium.onnx', target: 'pt_PT-tugão-medium.onnx', size: 63201294, md5: 'a1'.repeat(16) },
          { path: 'pt/pt_PT/tugão/medium/pt_PT-tugão-medium.onnx.json', target: 'pt_PT-tugão-medium.onnx.json', size: 4890, md5: 'b2'.repeat(16) },
          { path: 'pt/pt_PT/tugão/medium/MODEL_CARD', target: 'MODEL_CARD', size: 280, md5: 'c3'.repeat(16) },
        ],
      });
      expect(tugao).to.deep.include({ languages: ['pt-PT'], realWeightsRunHere: false, license: PIPER_LICENSE });
      expect(tugao).to.not.have.property('voices');
    });

    it("lists a multi-speaker voice's speakers in speaker-id order as its voice names, and a verified dataset licence", () => {
      expect(entries[0]?.voices).to.deep.equal(['awb', 'rms', 'slt']);
      expect(entries[0]?.license).to.equal('dataset: CC0 (MODEL_CARD); see model card');
      expect(entries[0]?.description).to.match(/English, United States \(English\), medium quality, 3 speakers/);
    });

    it('leaves voices of the hand-written manifest to it, and writes a file the manifest reader accepts', () => {
      const rest = piperVoiceEntries(SAMPLE, { repo: 'rhasspy/piper-voices', revision: 'main', skipIds: new Set(['piper-en_US-arctic-medium']) });
      expect(rest.map((entry) => entry.id)).to.deep.equal(['piper-pt_PT-tugao-medium']);
      const text = catalogText({ generator: 'test', inputs: [] }, entries, 'sample');
      expect(parseManifest(JSON.parse(text)).models).to.have.length(2);
      // A speaker list is one line of the file, however long.
      expect(text).to.include('"voices": ["awb","rms","slt"]');
    });

    it('refuses a voice without its .onnx.json or with a malformed md5', () => {
      const broken = structuredClone(SAMPLE);
      delete broken['en_US-arctic-medium']!.files['en/en_US/arctic/medium/en_US-arctic-medium.onnx.json'];
      expect(() => piperVoiceEntries(broken, { repo: 'r/p', revision: 'main' })).to.throw(/exactly one \.onnx and its \.onnx\.json/);
      const badMd5 = structuredClone(SAMPLE);
      badMd5['en_US-arctic-medium']!.files['en/en_US/arctic/medium/MODEL_CARD']!.md5_digest = 'xyz';
      expect(() => piperVoiceEntries(badMd5, { repo: 'r/p', revision: 'main' })).to.throw(/32-digit md5_digest/);
    });
  });

  describe('hub models', () => {
    const catalogs = hubCatalogs();

    it('lists the Whisper sizes with their languages: 99, 100 for large-v3, English for .en and distil', () => {
      const whisper = new Map(catalogs['speech-to-text']!.map((entry) => [entry.id, entry]));
      expect([...whisper.keys()]).to.include.members([
        'whisper-tiny',
        'whisper-small',
        'whisper-medium.en',
        'whisper-large-v3',
        'whisper-large-v3-turbo',
        'distil-large-v3',
      ]);
      expect(whisper.get('whisper-small')?.languages).to.have.length(99);
      expect(whisper.get('whisper-large-v3-turbo')?.languages).to.have.length(100).and.include('yue');
      expect(whisper.get('distil-large-v3')?.languages).to.deep.equal(['en']);
    });

    it('lists 20 opus-mt pairs (with the 4 of models.json, 24) and M2M100, each a Marian pair or the m2m100 family', () => {
      expect(OPUS_MT_PAIRS).to.have.length(20);
      const translation = catalogs.translation!;
      expect(translation.find((entry) => entry.id === 'opus-mt-en-de')?.options).to.deep.equal({ family: 'marian', source: 'en', target: 'de', dtype: 'q8' });
      expect(translation.find((entry) => entry.id === 'm2m100-418M')).to.deep.include({
        hubRepo: { repo: 'Xenova/m2m100_418M', revision: '9c374f0b7aca709787cea97b047bfbbd1559d177' },
      });
    });

    it('gives multilingual-e5-small its query and passage prefixes, and bge its CLS pooling', () => {
      const embeddings = new Map(catalogs.embeddings!.map((entry) => [entry.id, entry]));
      expect(embeddings.get('multilingual-e5-small')?.options?.prefixes).to.deep.equal({ query: 'query: ', passage: 'passage: ' });
      expect(embeddings.get('bge-small-en-v1.5')?.options?.pooling).to.equal('cls');
    });
  });
});
