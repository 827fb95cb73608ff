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

  it('accepts a tag or branch revision (resolved at install), but not as "pinned"', () => {
    expect(() => parseManifest(withSource({ revision: 'v1.0.0', files: [{ path: 'b.json' }] }))).not.to.throw();
    expect(() => parseManifest(withSource({ revision: 'main', files: [{ path: 'b.json' }] }))).not.to.throw();
    expect(() => parseManifest(withSource({ revision: 'v1.0.0', pinned: true, files: [{ path: 'a.onnx', sha256: SHA, size: 1 }] }))).to.throw(
      ManifestError,
      /pinned: needs a 40-character commit revision and the sha256 and size of every file/,
    );
    expect(() => parseManifest(withSource({ revision: '../x', files: [{ path: 'b.json' }] }))).to.throw(ManifestError, /commit hash, a branch or a tag/);
  });

  it('accepts "pinned" only when the commit and every file\'s sha256 and size are there', () => {
    const revision = 'a'.repeat(40);
    expect(() => parseManifest(withSource({ revision, pinned: true, files: [{ path: 'a.onnx', sha256: SHA, size: 3 }] }))).not.to.throw();
    expect(() => parseManifest(withSource({ revision, pinned: true, files: [{ path: 'a.onnx', sha256: SHA }] }))).to.throw(ManifestError, /pinned/);
  });

  it('accepts a PyPI wheel source only with the wheel and every file pinned', () => {
    const wheel = { type: 'pypi-wheel', package: 'faster-whisper', version: '1.2.1', wheel: 'faster_whisper-1.2.1-py3-none-any.whl', sha256: SHA, size: 10 };
    const entry = (source: Record<string, unknown>) => ({ models: [{ id: 'm', task: 'voice-activity-detection', engine: 'e', source }] });
    const file = { path: 'faster_whisper/assets/v.onnx', target: 'v.onnx', sha256: SHA, size: 5 };
    expect(() => parseManifest(entry({ ...wheel, files: [file] }))).not.to.throw();
    expect(() => parseManifest(entry({ ...wheel, files: [{ path: file.path }] }))).to.throw(
      ManifestError,
      /every file taken from a wheel needs its sha256 and size/,
    );
    expect(() => parseManifest(entry({ ...wheel, sha256: undefined, files: [file] }))).to.throw(ManifestError, /a wheel needs its sha256/);
    expect(() => parseManifest(entry({ ...wheel, wheel: 'x.zip', files: [file] }))).to.throw(ManifestError, /wheel file name/);
  });

  it('refuses entries that install one shared folder from different sources', () => {
    const source = (repo: string) => ({ type: 'huggingface', repo, revision: 'a'.repeat(40), files: [{ path: 'onnx/model.onnx' }] });
    const entry = (id: string, repo: string) => ({ id, task: 'embeddings', engine: 'e', options: { baseModel: 'base' }, source: source(repo) });
    expect(() => parseManifest({ models: [entry('a', 'org/x'), entry('b', 'org/x')] })).not.to.throw();
    expect(() => parseManifest({ models: [entry('a', 'org/x'), entry('b', 'org/y')] })).to.throw(
      ManifestError,
      /"b" and "a" install into the folder base from different sources/,
    );
  });

  it('accepts a starter set of one downloadable model per task, and refuses others', () => {
    const committed = parseManifest(JSON.parse(readFileSync('models/models.json', 'utf8')));
    expect(Object.keys(committed.starter ?? {})).to.have.members([
      'speech-to-text',
      'voice-activity-detection',
      'text-to-speech',
      'translation',
      'text-classification',
      'embeddings',
    ]);
    const models = [
      { id: 'm', task: 'translation', engine: 'e', source: { type: 'huggingface', repo: 'o/m', revision: 'main', files: [{ path: 'x' }] } },
      { id: 'n', task: 'translation', engine: 'e' },
    ];
    expect(() => parseManifest({ models, starter: { translation: 'm' } })).not.to.throw();
    expect(() => parseManifest({ models, starter: { translation: 'n' } })).to.throw(ManifestError, /"n" has no download source/);
    expect(() => parseManifest({ models, starter: { embeddings: 'm' } })).to.throw(ManifestError, /"m" is a translation model/);
    expect(() => parseManifest({ models, starter: { translation: 'x' } })).to.throw(ManifestError, /"x" is not a model of the manifest/);
  });

  it('gives every README model a download source, and sends no one to run a script by hand', () => {
    const committed = parseManifest(JSON.parse(readFileSync('models/models.json', 'utf8')));
    for (const id of ['whisper-tiny.en', 'silero-vad-v6', 'piper-en_US-joe-medium', 'minilm-sentiment', 'minilm-topics', 'minilm-embeddings']) {
      expect(committed.models.find((entry) => entry.id === id)?.source, id).to.be.an('object');
    }
    for (const entry of committed.models) expect(entry.installCommand ?? '', entry.id).not.to.match(/bash scripts\//);
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
