import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManifestError, parseManifest, readManifest, targetPath } from '../../src/inference/manifest.js';
import { knownSize } from '../../src/inference/model-size.js';
import { ModelCatalog } from '../../src/inference/model-catalog.js';
import { rejection } from '../helpers/rejection.js';

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
    expect(() => parseManifest(withSource({ revision: 'main', files: [{ path: 'a.onnx', md5: 'cd'.repeat(16) }] }))).not.to.throw();
    expect(() => parseManifest(withSource({ revision: 'main', files: [{ path: 'a.onnx', md5: 'CD' }] }))).to.throw(ManifestError, /32 lower-case hex/);
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

  it('refuses paths and targets that could leave the model folder or hold control characters', () => {
    for (const path of ['../x', '/etc/passwd', 'a/../../b', 'a\\b', '', 'voices/\u001b[2J.bin', 'a\nb']) {
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

  it('checks the catalogue facts: languages, realWeightsRunHere, diskSize, voices', () => {
    const entry = { id: 'a', task: 'text-to-speech', engine: 'e', description: 'd', license: 'l' };
    const good = { languages: ['en', 'pt-BR', 'yue'], realWeightsRunHere: false, diskSize: { bytes: 5, from: 'du -sb here' }, voices: ['awb', 'slt'] };
    expect(() => parseManifest({ models: [{ ...entry, ...good }] })).not.to.throw();
    for (const [field, bad, message] of [
      ['languages', ['en_US'], /languages must be an array of language codes/],
      ['languages', 'en', /languages must be an array/],
      ['realWeightsRunHere', 'yes', /realWeightsRunHere must be true or false/],
      ['diskSize', { bytes: 5 }, /diskSize must be/],
      ['diskSize', { bytes: 0, from: 'x' }, /diskSize must be/],
      ['voices', [''], /voices must be an array of voice names/],
    ] as const) {
      expect(() => parseManifest({ models: [{ ...entry, [field]: bad }] }), field).to.throw(ManifestError, message);
    }
  });

  describe('generated catalogue files (catalog/*.json beside the manifest)', () => {
    let dir: string;
    const entry = (id: string) => ({ id, task: 'embeddings', engine: 'sentence-embedding', description: 'x', license: 'x' });
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'lis-catalog-'));
      mkdirSync(join(dir, 'catalog'));
      writeFileSync(
        join(dir, 'models.json'),
        JSON.stringify({ models: [entry('shipped')], aliases: { 'text-embedding-3-small': { task: 'embeddings', prefer: ['shipped'] } } }),
      );
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('merges every catalogue file after the manifest, in file name order, keeping its aliases', async () => {
      writeFileSync(join(dir, 'catalog', 'b.json'), JSON.stringify({ generated: { generator: 'x' }, models: [entry('from-b')] }));
      writeFileSync(join(dir, 'catalog', 'a.json'), JSON.stringify({ models: [entry('from-a')] }));
      writeFileSync(join(dir, 'catalog', 'notes.txt'), 'not a catalogue file');
      const manifest = await readManifest(join(dir, 'models.json'));
      expect(manifest.models.map((model) => model.id)).to.deep.equal(['shipped', 'from-a', 'from-b']);
      expect(manifest.aliases?.['text-embedding-3-small']?.prefer).to.deep.equal(['shipped']);
    });

    it('keeps the starter set when it merges the catalogue, and lets it name a catalogue model', async () => {
      const raw = JSON.parse(readFileSync(join(dir, 'models.json'), 'utf8'));
      writeFileSync(join(dir, 'models.json'), JSON.stringify({ ...raw, starter: { embeddings: 'from-a' } }));
      const source = { type: 'huggingface', repo: 'o/r', revision: 'main', files: [{ path: 'x.onnx' }] };
      writeFileSync(join(dir, 'catalog', 'a.json'), JSON.stringify({ models: [{ ...entry('from-a'), source }] }));
      expect((await readManifest(join(dir, 'models.json'))).starter).to.deep.equal({ embeddings: 'from-a' });
      writeFileSync(join(dir, 'models.json'), JSON.stringify({ ...raw, starter: { embeddings: 'nowhere' } }));
      expect((await rejection(readManifest(join(dir, 'models.json')))).message).to.match(/starter\["embeddings"\]: "nowhere" is not a model/);
    });

    it('refuses an id the manifest or another catalogue file already defines, naming both files', async () => {
      writeFileSync(join(dir, 'catalog', 'a.json'), JSON.stringify({ models: [entry('shipped')] }));
      const clash = await rejection(readManifest(join(dir, 'models.json')));
      expect(clash).to.be.instanceOf(ManifestError);
      expect(clash.message).to.equal(`${join(dir, 'catalog', 'a.json')}: id "shipped" is also defined in ${join(dir, 'models.json')}`);
      writeFileSync(join(dir, 'catalog', 'a.json'), JSON.stringify({ models: [entry('twice')] }));
      writeFileSync(join(dir, 'catalog', 'b.json'), JSON.stringify({ models: [entry('twice')] }));
      expect((await rejection(readManifest(join(dir, 'models.json')))).message).to.match(/b\.json: id "twice" is also defined in .*a\.json$/);
    });

    it('checks each catalogue file with the manifest schema, and keeps aliases in the manifest', async () => {
      writeFileSync(join(dir, 'catalog', 'a.json'), JSON.stringify({ models: [{ ...entry('x'), task: 'chat' }] }));
      expect((await rejection(readManifest(join(dir, 'models.json')))).message).to.match(/a\.json: models\[0\]\.task must be one of/);
      writeFileSync(join(dir, 'catalog', 'a.json'), JSON.stringify({ models: [], aliases: {} }));
      expect((await rejection(readManifest(join(dir, 'models.json')))).message).to.match(/a\.json: aliases belong in/);
    });
  });

  it('every committed catalogue file validates against the manifest schema, and merges without clashes', async () => {
    const files = readdirSync('models/catalog').filter((name) => name.endsWith('.json'));
    expect(files).to.not.be.empty;
    const ids = files.flatMap((name) => parseManifest(JSON.parse(readFileSync(join('models/catalog', name), 'utf8')), name).models.map((entry) => entry.id));
    const merged = await readManifest('models/models.json');
    expect(merged.models.map((entry) => entry.id)).to.include.members(ids);
    // The merge keeps the shipped file's starter set (`download-models -- --starter`).
    expect(merged.starter).to.deep.equal(JSON.parse(readFileSync('models/models.json', 'utf8')).starter);
    // Every entry's engine, task and options pass the checks the server makes at start, and each
    // says (or its engine says) its languages, licence and whether its real weights ran here.
    const { ENGINES } = await import('../../src/inference/engines.js');
    const catalog = new ModelCatalog({ manifest: merged, modelsDir: tmpdir(), engines: ENGINES });
    const infos = new Map((await catalog.list(() => undefined)).map((info) => [info.id, info]));
    for (const id of ids) {
      const info = infos.get(id)!;
      expect(info.languages, `${id} states its languages`).to.be.an('array').that.is.not.empty;
      expect(info.license, id).to.be.a('string').and.not.equal('');
      expect(merged.models.find((entry) => entry.id === id)?.realWeightsRunHere, `${id} says whether its real weights ran here`).to.be.a('boolean');
    }
  });

  it('every model of the shipped manifest and catalogue has a size before download, and says when it is an estimate', async () => {
    const merged = await readManifest('models/models.json');
    const unsized = merged.models.filter((entry) => knownSize(entry) === undefined).map((entry) => entry.id);
    expect(unsized, "entries with no size (pin every file's size, or give diskSize)").to.deep.equal([]);
    for (const entry of merged.models) {
      const size = knownSize(entry)!;
      expect(size.bytes, entry.id).to.be.above(0);
      // An estimate must say how it was made; a figure read from files or a package needs its source too.
      if (size.from !== 'files') expect(entry.diskSize?.from, entry.id).to.be.a('string').with.length.above(10);
    }
    // GET /v1/models says the same: an estimated size carries size_estimated.
    const { ENGINES } = await import('../../src/inference/engines.js');
    const catalog = new ModelCatalog({ manifest: merged, modelsDir: tmpdir(), engines: ENGINES });
    for (const info of await catalog.list(() => undefined)) {
      const entry = merged.models.find((model) => model.id === info.id);
      if (!entry) continue;
      expect(info.size_bytes, info.id).to.be.a('number');
      expect(info.size_estimated === true, info.id).to.equal(entry.diskSize?.estimated === true && knownSize(entry)?.from !== 'files');
    }
  });
});
