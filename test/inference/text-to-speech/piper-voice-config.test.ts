import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { parsePiperVoiceConfig, PiperConfigError } from '../../../src/inference/text-to-speech/piper-voice-config.js';

const FIXTURE = new URL('../../fixtures/models/piper-random/piper-random.onnx.json', import.meta.url);

describe('parsePiperVoiceConfig', () => {
  const raw = JSON.parse(readFileSync(FIXTURE, 'utf8'));

  it('reads sample rate, espeak voice, scales and the phoneme map from the .onnx.json', () => {
    const config = parsePiperVoiceConfig(raw);
    expect(config.sampleRate).to.equal(16000);
    expect(config.espeakVoice).to.equal('en-us');
    expect([config.noiseScale, config.lengthScale, config.noiseW]).to.deep.equal([0.667, 1, 0.8]);
    expect(config.phonemeIdMap.get('^')).to.deep.equal([1]);
    expect(config.phonemeIdMap.get('ə')).to.deep.equal([59]);
    expect(config.speakers.size).to.equal(0);
  });

  it('names the problem for a broken config', () => {
    expect(() => parsePiperVoiceConfig({ ...raw, audio: {} })).to.throw(PiperConfigError, /sample_rate/);
    expect(() => parsePiperVoiceConfig({ ...raw, espeak: {} })).to.throw(PiperConfigError, /espeak.voice/);
    expect(() => parsePiperVoiceConfig({ ...raw, phoneme_type: 'text' })).to.throw(PiperConfigError, /phoneme_type/);
    expect(() => parsePiperVoiceConfig({ ...raw, phoneme_id_map: { a: [1] } })).to.throw(PiperConfigError, /lacks/);
  });

  it('keeps named speakers of multi-speaker voices', () => {
    const config = parsePiperVoiceConfig({ ...raw, speaker_id_map: { alice: 0, bob: 1 } });
    expect([...config.speakers]).to.deep.equal([
      ['alice', 0],
      ['bob', 1],
    ]);
  });
});
