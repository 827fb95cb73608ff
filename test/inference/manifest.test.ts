import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { ManifestError, parseManifest, targetPath } from '../../src/inference/manifest.js';

const SHA = 'ab'.repeat(32);

function withSource(source: Record<string, unknown>) {
  return { models: [{ id: 'm', task: 'translation', engine: 'e', description: 'd', license: 'l', source: { type: 'huggingface', repo: 'org/m', ...source } }] };
}

describe('model manifest', () => {
  it('accepts the committed models/models.json', () => {
    const manifest = parseManifest(JSON.parse(readFileSync('models/models.json', 'utf8')), 'models/models.json');
    expect(manifest.models.length).to.be.greaterThan(0);
    for (const entry of manifest.models) {
      expect(entry.description, entry.id).to.be.a('string').and.not.equal('');
      expect(entry.license, entry.id).to.be.a('string').and.not.equal('');
      expect(entry.source !== undefined || entry.installCommand !== undefined || entry.engine === 'apertium', `${entry.id} says how it is installed`).to.equal(
        true,
      );
    }
  });

  it('accepts a commit revision with unpinned files', () => {
    expect(() => parseManifest(withSource({ revision: 'a'.repeat(40), files: [{ path: 'config.json' }] }))).not.to.throw();
  });

  it('accepts a tag revision only when every file pins its sha256', () => {
    expect(() => parseManifest(withSource({ revision: 'v1.0.0', files: [{ path: 'a.onnx', sha256: SHA }] }))).not.to.throw();
    expect(() => parseManifest(withSource({ revision: 'v1.0.0', files: [{ path: 'a.onnx', sha256: SHA }, { path: 'b.json' }] }))).to.throw(
      ManifestError,
      /tag only when every file pins its sha256/,
    );
  });

  it('refuses paths and targets that could leave the model folder', () => {
    for (const path of ['../x', '/etc/passwd', 'a/../../b', 'a\\b', '']) {
      expect(() => parseManifest(withSource({ revision: 'a'.repeat(40), files: [{ path }] })), path).to.throw(ManifestError, /invalid path/);
      expect(() => parseManifest(withSource({ revision: 'a'.repeat(40), files: [{ path: 'ok', target: path }] })), path).to.throw(
        ManifestError,
        /invalid target/,
      );
    }
  });

  it('refuses two files with the same installed name, bad hashes and bad sizes', () => {
    const revision = 'a'.repeat(40);
    expect(() => parseManifest(withSource({ revision, files: [{ path: 'x/a' }, { path: 'y/b', target: 'x/a' }] }))).to.throw(/two files install to x\/a/);
    expect(() => parseManifest(withSource({ revision, files: [{ path: 'a', sha256: 'ABC' }] }))).to.throw(/64 lower-case hex/);
    expect(() => parseManifest(withSource({ revision, files: [{ path: 'a', size: -1 }] }))).to.throw(/non-negative integer/);
  });

  it('installs a file under its target name, or its repository path', () => {
    expect(targetPath({ path: 'en/en_US/joe/medium/x.onnx', target: 'x.onnx' })).to.equal('x.onnx');
    expect(targetPath({ path: 'onnx/model.onnx' })).to.equal('onnx/model.onnx');
  });

  it('refuses duplicate ids and unknown tasks', () => {
    const entry = { id: 'a', task: 'translation', engine: 'e' };
    expect(() => parseManifest({ models: [entry, entry] })).to.throw(/duplicate id "a"/);
    expect(() => parseManifest({ models: [{ ...entry, task: 'chat' }] })).to.throw(/task must be one of/);
  });

  it('accepts an idleTtl of seconds or -1, and refuses others', () => {
    const entry = { id: 'a', task: 'translation', engine: 'e' };
    for (const idleTtl of [0, 600, 0.5, -1]) expect(() => parseManifest({ models: [{ ...entry, idleTtl }] })).not.to.throw();
    for (const idleTtl of [-2, '600', null]) expect(() => parseManifest({ models: [{ ...entry, idleTtl }] })).to.throw(ManifestError, /models\[0\]\.idleTtl/);
  });

  it('accepts aliases of a task whose preferred models serve it, and refuses others', () => {
    const committed = parseManifest(JSON.parse(readFileSync('models/models.json', 'utf8')));
    expect(committed.aliases?.['whisper-1']?.task).to.equal('speech-to-text');
    expect(committed.aliases?.['tts-1']?.task).to.equal('text-to-speech');
    const models = [{ id: 'm', task: 'translation', engine: 'e', description: 'd', license: 'l' }];
    expect(() => parseManifest({ models, aliases: { 'mt-1': { task: 'translation', prefer: ['m'] } } })).not.to.throw();
    expect(() => parseManifest({ models, aliases: { 'mt-1': { task: 'speech-to-text', prefer: ['m'] } } })).to.throw(
      ManifestError,
      /"m" is not a speech-to-text model/,
    );
    expect(() => parseManifest({ models, aliases: { m: { task: 'translation', prefer: [] } } })).to.throw(ManifestError, /a model already has this id/);
    expect(() => parseManifest({ models, aliases: { 'a b': { task: 'translation', prefer: [] } } })).to.throw(ManifestError, /must match/);
  });
});
