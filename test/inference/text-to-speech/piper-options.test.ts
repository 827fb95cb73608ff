import { expect } from 'chai';
import { ManifestError, type ManifestEntry } from '../../../src/inference/manifest.js';
import { piperEngine } from '../../../src/inference/text-to-speech/piper-engine.js';

const voice = (options: Record<string, unknown>): ManifestEntry => ({
  id: 'v',
  task: 'text-to-speech',
  engine: 'piper',
  description: 'a voice',
  license: 'MIT',
  options,
});

describe('piper options', () => {
  it('lets ORT threads spin unless the manifest says otherwise, and names a wrong value', () => {
    expect(piperEngine.options.read(voice({}))).to.include({ spinning: true });
    expect(piperEngine.options.read(voice({ spinning: false }))).to.include({ spinning: false });
    expect(piperEngine.options.read(voice({ spinning: true }))).to.include({ spinning: true });
    expect(() => piperEngine.options.read(voice({ spinning: 'yes' }))).to.throw(ManifestError, /model "v".*options\.spinning/);
    expect(piperEngine.options.read(voice({ spinning: 250 }))).to.include({ spinning: 250 });
    for (const spinning of [0, -5, 1.5, 100_001]) {
      expect(() => piperEngine.options.read(voice({ spinning })), String(spinning)).to.throw(ManifestError, /options\.spinning/);
    }
  });

  it("runs without onnxruntime's memory arena unless the manifest turns it on", () => {
    expect(piperEngine.options.read(voice({}))).to.include({ memoryArena: false });
    expect(piperEngine.options.read(voice({ memoryArena: true }))).to.include({ memoryArena: true });
    expect(() => piperEngine.options.read(voice({ memoryArena: 'on' }))).to.throw(ManifestError, /options\.memoryArena/);
  });
});
