/**
 * Every install path of `download-models` through the real manifest loader on the shipped files
 * (models/models.json merged with models/catalog/*.json), against a hub mirror and a package
 * index on 127.0.0.1 serving small files this test makes: `--starter`, a catalogue id of each
 * source kind (hub commit, hub fully pinned, `hubRepo`, PyPI wheel, Debian package), `hf:`, and
 * `--from` a folder and a tarball. The mirror's bytes are not the real ones, so every model whose
 * files the shipped manifest pins by SHA-256 or size must be refused, and every other one is
 * checked against what the mirror's tree publishes. One test imports the real whisper-tiny.en
 * test model (`npm run test-models`) with its external weights and transcribes with it.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { runDownloadModels } from '../../src/inference/install/download-models-command.js';
import { loadManifest } from '../../src/inference/local-entries.js';
import type { HuggingFaceSource, PypiWheelSource } from '../../src/inference/manifest.js';
import { readManifest } from '../../src/inference/manifest.js';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';
import { startHubMirror, type FakeHub, type MirrorRepo } from '../helpers/fake-hub.js';
import { REAL_MODELS_DIR } from '../helpers/real-models.js';
import { bearer, createTestApp } from '../helpers/test-app.js';
import { tinyOnnx } from '../helpers/tiny-onnx.js';

const MANIFEST = join(REPO_ROOT, 'models/models.json');
const shipped = await readManifest(MANIFEST);
const source = (id: string) => shipped.models.find((entry) => entry.id === id)?.source;
const hubSource = (id: string) => source(id) as HuggingFaceSource;

/** A repo at the manifest's commit whose files are small stand-ins: a readable graph for each .onnx, `{}` for the rest. */
function standIn(id: string): MirrorRepo {
  const { revision, files } = hubSource(id);
  return { commit: revision, files: Object.fromEntries(files.map((file) => [file.path, file.path.endsWith('.onnx') ? tinyOnnx([]) : Buffer.from('{}')])) };
}

function mirrorRepos(): Record<string, MirrorRepo> {
  const hubRepo = shipped.models.find((entry) => entry.id === 'bge-small-en-v1.5')?.hubRepo;
  return {
    [hubSource('whisper-tiny.en').repo]: standIn('whisper-tiny.en'),
    [hubSource('minilm-embeddings').repo]: standIn('minilm-embeddings'),
    [hubSource('opus-mt-en-es').repo]: standIn('opus-mt-en-es'),
    [hubSource('whisper-base').repo]: standIn('whisper-base'),
    [hubSource('piper-en_US-joe-medium').repo]: { ...standIn('piper-en_US-joe-medium'), commit: 'f'.repeat(40), refs: ['v1.0.0'] },
    [hubRepo?.repo as string]: {
      commit: hubRepo?.revision as string,
      files: {
        'config.json': Buffer.from(JSON.stringify({ architectures: ['BertModel'], model_type: 'bert' })),
        'tokenizer.json': Buffer.from('{}'),
        'tokenizer_config.json': Buffer.from('{}'),
        '1_Pooling/config.json': Buffer.from(JSON.stringify({ pooling_mode_cls_token: true })),
        'onnx/model_quantized.onnx': tinyOnnx([]),
      },
    },
    'someone/tiny-classifier': {
      files: {
        'config.json': Buffer.from(JSON.stringify({ architectures: ['BertForSequenceClassification'], model_type: 'bert', id2label: { 0: 'NEG', 1: 'POS' } })),
        'tokenizer.json': Buffer.from('{}'),
        'tokenizer_config.json': Buffer.from('{}'),
        'onnx/model_quantized.onnx': tinyOnnx([]),
      },
    },
  };
}

/** The wheel's project page (listing the pinned sha256, as PyPI would) and bytes that are not the wheel. */
function indexFiles(): Record<string, Buffer> {
  const wheel = source('silero-vad-v6') as PypiWheelSource;
  const page = `<html><body><a href="../../packages/${wheel.wheel}#sha256=${wheel.sha256}">${wheel.wheel}</a></body></html>`;
  return { '/simple/faster-whisper/': Buffer.from(page), [`/packages/${wheel.wheel}`]: Buffer.alloc(wheel.size, 1) };
}

describe('download-models through the shipped manifest and catalogue (hub mirror on 127.0.0.1)', () => {
  let hub: FakeHub;
  let dir: string;
  let modelsDir: string;

  before(async () => {
    hub = await startHubMirror(mirrorRepos(), indexFiles());
  });
  after(() => hub.close());
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lis-shipped-'));
    modelsDir = join(dir, 'models');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function run(args: string[]) {
    let stderr = '';
    const code = await runDownloadModels(args, {
      env: { MODELS_DIR: modelsDir, MODELS_MANIFEST: MANIFEST, HF_ENDPOINT: hub.url, PIP_INDEX_URL: `${hub.url}/simple` },
      stdout: { write: () => true },
      stderr: { isTTY: false, write: (chunk: string) => (stderr += chunk) },
      hub: { connectTimeoutMs: 2000, idleTimeoutMs: 2000 },
    });
    return { code, stderr };
  }
  const installed = () =>
    existsSync(modelsDir)
      ? readdirSync(modelsDir)
          .filter((name) => !name.startsWith('.'))
          .sort()
      : [];
  const record = (folder: string) => JSON.parse(readFileSync(join(modelsDir, folder, '.installed.json'), 'utf8'));

  it('--starter gets past the manifest, says the total, installs what the mirror vouches for and refuses every pin it breaks', async () => {
    const { code, stderr } = await run(['--starter']);
    expect(stderr).to.not.include('names no starter set');
    expect(stderr).to.match(/^starter set, to download: \d+ models, /m);
    // Commit-only entries: checked against the mirror's tree.
    expect(installed()).to.deep.equal(['all-MiniLM-L6-v2', 'whisper-tiny.en']);
    // Pinned by SHA-256 (opus-mt), by size and SHA-256 (the Piper voice), by the wheel's pin (Silero VAD).
    expect(stderr).to.match(/error: opus-mt-en-es: .*onnx\/encoder_model_quantized\.onnx is pinned as sha256 [0-9a-f]{64}, the hub publishes [0-9a-f]{64}/);
    expect(stderr).to.match(/error: piper-en_US-joe-medium: size mismatch for piper-en_US-joe-medium\/en_US-joe-medium\.onnx/);
    expect(stderr).to.match(/error: silero-vad-v6: sha256 mismatch for faster_whisper-[\w.-]+\.whl/);
    expect(code).to.equal(1);
    expect(stderr).to.match(/done: 2 installed, 1 already installed, 0 skipped, 3 failed/);
  });

  it('installs or refuses a catalogue id of each source kind as its pins say', async () => {
    const { code, stderr } = await run(['minilm-embeddings', 'whisper-base', 'bge-small-en-v1.5', 'silero-vad-v6', 'apertium-eng-spa']);
    expect(code).to.equal(1);
    // Hub, commit only: every file checked against the tree and its SHA-256 recorded.
    expect(record('all-MiniLM-L6-v2').files.every((file: { sha256: string }) => /^[0-9a-f]{64}$/.test(file.sha256))).to.equal(true);
    // Hub, fully pinned: the mirror's bytes are not the pinned ones.
    expect(stderr).to.match(/error: whisper-base: size mismatch for whisper-base\/config\.json: expected 2248 bytes/);
    // hubRepo: the file list read from the tree at the catalogue's commit.
    expect(record('bge-small-en-v1.5').source.repo).to.equal('Xenova/bge-small-en-v1.5');
    // PyPI wheel: refused by its pin.
    expect(stderr).to.match(/error: silero-vad-v6: sha256 mismatch for faster_whisper/);
    // Debian package: not downloaded, its install command named.
    expect(stderr).to.match(/skip apertium-eng-spa: no download source in the manifest; install it with: .*apt-get install .*apertium-eng-spa/);
    expect(installed()).to.deep.equal(['all-MiniLM-L6-v2', 'bge-small-en-v1.5']);
  });

  it('installs an hf: repo beside the shipped models, and the manifest still loads with it', async () => {
    const { code, stderr } = await run(['hf:someone/tiny-classifier']);
    expect(code, stderr).to.equal(0);
    const manifest = await loadManifest(MANIFEST, modelsDir);
    expect(manifest.localIds).to.deep.equal(['tiny-classifier']);
    expect(manifest.starter).to.deep.equal(shipped.starter);
  });

  describe('--from a copy of a model whose graphs keep their weights beside them', () => {
    let copy: string;
    beforeEach(() => {
      // whisper-tiny.en as `npm run test-models` lays it out: each graph with its .onnx_data.
      copy = join(dir, 'copy/whisper-tiny.en');
      for (const file of hubSource('whisper-tiny.en').files) {
        mkdirSync(dirname(join(copy, file.path)), { recursive: true });
        const graph = file.path.endsWith('.onnx');
        const data = `${file.path.split('/').at(-1)}_data`;
        writeFileSync(
          join(copy, file.path),
          graph ? tinyOnnx([{ location: data, offset: 0, length: 1000 }], [{ location: data, offset: 1000, length: 24 }]) : '{}',
        );
        if (graph) writeFileSync(join(copy, `${file.path}_data`), Buffer.alloc(1024, 7));
      }
    });

    for (const kind of ['folder', 'tarball'] as const) {
      it(`installs every file, external weights included, from a ${kind}`, async () => {
        let from = join(dir, 'copy');
        if (kind === 'tarball') {
          from = join(dir, 'models.tgz');
          await promisify(execFile)('tar', ['-czf', from, '-C', join(dir, 'copy'), '.']);
        }
        const { code, stderr } = await run(['--from', from]);
        expect(code, stderr).to.equal(0);
        expect(stderr).to.match(/whisper-tiny\.en: installed 9 files/);
        const files = record('whisper-tiny.en').files.map((file: { path: string }) => file.path);
        expect(files).to.include.members(['onnx/encoder_model.onnx_data', 'onnx/decoder_model_merged.onnx_data']);
        expect(statSync(join(modelsDir, 'whisper-tiny.en/onnx/encoder_model.onnx_data')).size).to.equal(1024);
        // A second run sees the install as current, extra files and all.
        expect((await run(['--from', from])).stderr).to.match(/whisper-tiny\.en: already installed/);
      });
    }

    it('refuses a copy whose external weights are missing or cut short, naming each, and installs nothing', async () => {
      rmSync(join(copy, 'onnx/encoder_model.onnx_data'));
      truncateSync(join(copy, 'onnx/decoder_model_merged.onnx_data'), 512);
      rmSync(join(copy, 'tokenizer.json'));
      const { code, stderr } = await run(['--from', join(dir, 'copy')]);
      expect(code).to.equal(1);
      const errors = stderr.split('\n').filter((line) => line.startsWith('error:'));
      expect(errors).to.have.length(1);
      expect(errors[0]).to.match(
        /^error: whisper-tiny\.en: incomplete model in .*whisper-tiny\.en: it lacks tokenizer\.json, onnx\/encoder_model\.onnx_data \(the weights of onnx\/encoder_model\.onnx\), onnx\/decoder_model_merged\.onnx_data \(512 bytes; onnx\/decoder_model_merged\.onnx reads 1024\); copy the whole model folder$/,
      );
      expect(installed()).to.deep.equal([]);
    });
  });

  it('--from refuses a copied .installed.json whose paths climb out of the model folder, writing nothing outside it', async () => {
    const hubRepo = shipped.models.find((entry) => entry.id === 'bge-small-en-v1.5')?.hubRepo;
    const copy = join(dir, 'copy/bge-small-en-v1.5');
    mkdirSync(copy, { recursive: true });
    writeFileSync(join(dir, 'copy/escape.txt'), 'x');
    const files = [{ path: '../escape.txt', sha256: 'b'.repeat(64), size: 1 }];
    writeFileSync(join(copy, '.installed.json'), JSON.stringify({ id: 'bge-small-en-v1.5', source: { type: 'huggingface', ...hubRepo }, files }));
    const { code, stderr } = await run(['bge-small-en-v1.5', '--from', join(dir, 'copy')]);
    expect(code).to.equal(1);
    expect(stderr).to.match(
      /error: bge-small-en-v1\.5: the \.installed\.json of the copy of bge-small-en-v1\.5: models\[0\]\.source\.files: invalid path "\.\.\/escape\.txt"/,
    );
    expect(readdirSync(dir).sort()).to.deep.equal(['copy']);
  });

  it('--from the real whisper-tiny.en test model installs its external weights, and it transcribes', async function () {
    this.timeout(60_000);
    const real = join(REAL_MODELS_DIR, 'whisper-tiny.en');
    if (!existsSync(join(real, '.installed.json'))) this.skip(); // `npm run test-models` installs it
    const { code, stderr } = await run(['whisper-tiny.en', '--from', real]);
    expect(code, stderr).to.equal(0);
    for (const graph of ['encoder_model', 'decoder_model_merged']) {
      expect(statSync(join(modelsDir, `whisper-tiny.en/onnx/${graph}.onnx_data`)).size).to.equal(statSync(join(real, `onnx/${graph}.onnx_data`)).size);
    }
    const app = await createTestApp({ manifest: await loadManifest(MANIFEST, modelsDir), modelsDir });
    try {
      const response = await app.request
        .post('/v1/audio/transcriptions')
        .set('Authorization', bearer())
        .field('model', 'whisper-tiny.en')
        .attach('file', readFileSync(join(REPO_ROOT, 'samples/jfk.mp3')), { filename: 'jfk.mp3', contentType: 'audio/mpeg' });
      expect(response.status, response.text).to.equal(200);
      expect(response.body.text.toLowerCase()).to.include('ask not what your country can do for you');
    } finally {
      await app.close();
    }
  });
});
