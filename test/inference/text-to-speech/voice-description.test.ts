import { expect } from 'chai';
import { piperEngine } from '../../../src/inference/text-to-speech/piper-engine.js';
import { transformersTtsEngine } from '../../../src/inference/text-to-speech/transformers-tts-engine.js';
import { SPEECH_FORMATS } from '../../../src/inference/types.js';
import type { ManifestEntry } from '../../../src/inference/manifest.js';

// GET /v1/models shows these fields; they once said mp3 and wav after Opus, FLAC and AAC were added.
describe('voices in GET /v1/models', () => {
  const entry = { id: 'voice', task: 'text-to-speech', engine: 'piper', description: '', license: '' } as ManifestEntry;

  it('list every format speak() encodes, and the speed range of each engine', () => {
    expect(piperEngine.describe!(entry)).to.deep.equal({ formats: [...SPEECH_FORMATS], speed: { min: 0.25, max: 4 } });
    expect(transformersTtsEngine.describe!(entry)).to.deep.equal({ formats: [...SPEECH_FORMATS], speed: { min: 1, max: 1 } });
  });
});
