/**
 * The README's models installed from their catalogue sources, through a hub mirror and a package
 * index on loopback (HF_ENDPOINT, PIP_INDEX_URL): the real test models re-laid as the repos the
 * catalogue names (MiniLM as Xenova/all-MiniLM-L6-v2, Whisper tiny.en as Xenova/whisper-tiny.en,
 * each graph as one self-contained .onnx as the hub publishes it; the Piper voice as
 * rhasspy/piper-voices at its tag) and the faster-whisper wheel the Silero VAD comes out of, as
 * PyPI serves it. Then a started app answers from what was installed. Skipped unless `npm run
 * test-models` installed the real models (CI does).
 */
import { expect } from 'chai';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runDownloadModels } from '../../src/inference/install/download-models-command.js';
import { loadManifest } from '../../src/inference/local-entries.js';
import type { HuggingFaceSource, Manifest, PypiWheelSource } from '../../src/inference/manifest.js';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';
import { folderFiles, startHubMirror, type FakeHub, type MirrorRepo } from '../helpers/fake-hub.js';
import { inlineExternalData } from '../helpers/onnx-inline.js';
import { REAL_MODELS_DIR } from '../helpers/real-models.js';
import { bearer, createTestApp } from '../helpers/test-app.js';

const SHIPPED = JSON.parse(readFileSync(join(REAL_MODELS_DIR, 'models.json'), 'utf8')) as Manifest;
const entry = (id: string) => SHIPPED.models.find((model) => model.id === id)!;
const hubSource = (id: string) => entry(id).source as HuggingFaceSource;
const WHEEL = entry('silero-vad-v6').source as PypiWheelSource;
const WHEEL_PATH = join(REPO_ROOT, '.cache/wheels', WHEEL.wheel);
const installed = (folder: string) => existsSync(join(REAL_MODELS_DIR, folder, '.installed.json'));
const REAL = ['all-MiniLM-L6-v2', 'whisper-tiny.en', 'piper-en_US-joe-medium'];

/** A test-model folder's files at their hub paths, each ONNX graph with its external weights folded in. */
function asHubRepo(folder: string, paths: readonly string[]): Record<string, Buffer> {
  const dir = join(REAL_MODELS_DIR, folder);
  return Object.fromEntries(
    paths.map((path) => {
      const file = join(dir, path);
      const bytes = readFileSync(file);
      return [path, path.endsWith('.onnx') ? inlineExternalData(bytes, (location) => readFileSync(join(file, '..', location))) : bytes];
    }),
  );
}

/** The test model's config.json without the flag that tells transformers.js to fetch `model.onnx_data`: the hub's has none. */
function hubConfig(folder: string): Buffer {
  const { 'transformers.js_config': _external, ...config } = JSON.parse(readFileSync(join(REAL_MODELS_DIR, folder, 'config.json'), 'utf8'));
  return Buffer.from(JSON.stringify(config, null, 2));
}

function mirrorRepos(): Record<string, MirrorRepo> {
  const minilm = hubSource('minilm-embeddings');
  const whisper = hubSource('whisper-tiny.en');
  const piper = hubSource('piper-en_US-joe-medium');
  const marian = hubSource('opus-mt-en-es');
  return {
    [minilm.repo]: {
      commit: minilm.revision,
      files: { ...asHubRepo('all-MiniLM-L6-v2', ['tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx']), 'config.json': hubConfig('all-MiniLM-L6-v2') },
    },
    [whisper.repo]: {
      commit: whisper.revision,
      files: asHubRepo(
        'whisper-tiny.en',
        whisper.files.map((file) => file.path),
      ),
    },
    [piper.repo]: {
      commit: 'f'.repeat(40),
      refs: [piper.revision],
      files: Object.fromEntries(
        piper.files.map((file) => [file.path, readFileSync(join(REAL_MODELS_DIR, 'piper-en_US-joe-medium', file.target ?? file.path))]),
      ),
    },
    // No real opus-mt weights are on the registries: the random-weight Marian export stands in
    // for the starter set's translation model (its manifest pins are dropped in that test).
    [marian.repo]: { commit: marian.revision, files: folderFiles(join(REPO_ROOT, 'test/fixtures/models/marian-en-es-random')) },
  };
}

/** A PEP 503 project page, as PyPI serves it: the wheel's link with its sha256 fragment. */
function indexFiles(wheel: Buffer): Record<string, Buffer> {
  const page = `<!DOCTYPE html><html><body><a href="../../packages/${WHEEL.wheel}#sha256=${WHEEL.sha256}">${WHEEL.wheel}</a></body></html>`;
  return { '/simple/faster-whisper/': Buffer.from(page), [`/packages/${WHEEL.wheel}`]: wheel };
}

describe("npm run download-models: the README's models through a hub mirror and a package index", function () {
  this.timeout(300_000);
  let repos: Record<string, MirrorRepo>;
  let wheel: Buffer;
  let hub: FakeHub;
  let dir: string;
  let modelsDir: string;

  before(function () {
    const missing = [...REAL.filter((folder) => !installed(folder)), ...(existsSync(WHEEL_PATH) ? [] : [WHEEL_PATH])];
    if (missing.length > 0) {
      // Real weights are not committed; `npm run test-models` installs them (and keeps the wheel).
      this.skip();
    }
    repos = mirrorRepos();
    wheel = readFileSync(WHEEL_PATH);
  });
  beforeEach(async () => {
    hub = await startHubMirror(repos, indexFiles(wheel));
    dir = mkdtempSync(join(tmpdir(), 'lis-readme-'));
    modelsDir = join(dir, 'models');
  });
  afterEach(async () => {
    await hub?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function run(args: string[], manifestPath = join(REAL_MODELS_DIR, 'models.json')) {
    let stderr = '';
    const code = await runDownloadModels(args, {
      env: { MODELS_DIR: modelsDir, MODELS_MANIFEST: manifestPath, HF_ENDPOINT: hub.url, PIP_INDEX_URL: `${hub.url}/simple` },
      stdout: { write: () => true },
      stderr: { isTTY: false, write: (chunk: string) => (stderr += chunk) },
      hub: { connectTimeoutMs: 5000, idleTimeoutMs: 5000 },
    });
    return { code, stderr };
  }

  it('installs MiniLM, Whisper tiny.en and Silero VAD by id; the app answers embeddings, classification, transcription and vad_filter', async () => {
    const { code, stderr } = await run(['minilm-sentiment', 'minilm-topics', 'minilm-embeddings', 'whisper-tiny.en', 'silero-vad-v6']);
    expect(code, stderr).to.equal(0);
    expect(stderr).to.include('minilm-topics: shares the folder all-MiniLM-L6-v2 with minilm-sentiment, installed once');
    expect(readdirSync(modelsDir).sort()).to.deep.equal(['all-MiniLM-L6-v2', 'silero-vad-v6', 'whisper-tiny.en']);
    const marker = JSON.parse(readFileSync(join(modelsDir, 'all-MiniLM-L6-v2', '.installed.json'), 'utf8'));
    // Nothing of MiniLM is pinned but the commit: every file was checked against the hub's tree and recorded.
    expect(marker.source).to.deep.equal({
      type: 'huggingface',
      repo: 'Xenova/all-MiniLM-L6-v2',
      revision: hubSource('minilm-embeddings').revision,
      commit: hubSource('minilm-embeddings').revision,
    });
    expect(marker.files.map((file: { path: string }) => file.path)).to.have.members([
      'config.json',
      'tokenizer.json',
      'tokenizer_config.json',
      'onnx/model.onnx',
    ]);
    expect(stderr).to.match(/all-MiniLM-L6-v2\/config\.json: no sha256 pinned, git blob id checked/);
    const vad = JSON.parse(readFileSync(join(modelsDir, 'silero-vad-v6', '.installed.json'), 'utf8'));
    expect(vad.source).to.deep.equal({ type: 'pypi-wheel', package: 'faster-whisper', version: '1.2.1', wheel: WHEEL.wheel, sha256: WHEEL.sha256 });
    expect(readdirSync(join(modelsDir, 'silero-vad-v6')).sort()).to.deep.equal(['.installed.json', 'silero_vad_v6.onnx']);

    const app = await createTestApp({ manifest: await loadManifest(join(REAL_MODELS_DIR, 'models.json'), modelsDir), modelsDir });
    try {
      const embedded = await app.request
        .post('/v1/embeddings')
        .set('Authorization', bearer())
        .send({ model: 'text-embedding-3-small', input: 'A cat sits on the mat.' });
      expect(embedded.status, embedded.text).to.equal(200);
      expect(embedded.body.model).to.equal('minilm-embeddings');
      expect(embedded.body.data[0].embedding).to.have.length(384);
      const classified = await app.request
        .post('/v1/classifications')
        .set('Authorization', bearer())
        .send({ model: 'minilm-sentiment', query: 'a gorgeous, witty, seductive movie' });
      expect(classified.status, classified.text).to.equal(200);
      expect(classified.body.labels[0].label).to.equal('positive');
      const jfk = readFileSync(join(REPO_ROOT, 'samples/jfk.mp3'));
      for (const vadFilter of ['false', 'true']) {
        const transcribed = await app.request
          .post('/v1/audio/transcriptions')
          .set('Authorization', bearer())
          .field('model', 'whisper-tiny.en')
          .field('vad_filter', vadFilter)
          .attach('file', jfk, { filename: 'jfk.mp3', contentType: 'audio/mpeg' });
        expect(transcribed.status, transcribed.text).to.equal(200);
        expect(transcribed.body.text.toLowerCase(), `vad_filter=${vadFilter}`).to.include('ask not what your country can do for you');
      }
    } finally {
      await app.close();
    }
  });

  it('refuses a weight file or a wheel whose bytes the hub or the pin do not vouch for, leaving nothing installed', async () => {
    const minilm = hubSource('minilm-embeddings');
    const weights = (repos[minilm.repo] as MirrorRepo).files['onnx/model.onnx'] as Buffer;
    const flipped = Buffer.from(weights);
    flipped[flipped.length - 1] = (flipped[flipped.length - 1] as number) ^ 0xff;
    const tamperedWheel = Buffer.from(wheel);
    tamperedWheel[100] = (tamperedWheel[100] as number) ^ 0xff;
    await hub.close();
    hub = await startHubMirror(
      { ...repos, [minilm.repo]: { ...(repos[minilm.repo] as MirrorRepo), tampered: { 'onnx/model.onnx': flipped } } },
      indexFiles(tamperedWheel),
    );
    const { code, stderr } = await run(['minilm-embeddings', 'silero-vad-v6']);
    expect(code).to.equal(1);
    expect(stderr).to.match(/sha256 mismatch for all-MiniLM-L6-v2\/onnx\/model\.onnx: expected [0-9a-f]{64}, got [0-9a-f]{64}; the file was deleted/);
    expect(stderr).to.match(new RegExp(`sha256 mismatch for ${WHEEL.wheel.replaceAll('.', '\\.')}: expected ${WHEEL.sha256}`));
    expect(readdirSync(modelsDir).filter((name) => !name.startsWith('.'))).to.deep.equal([]);
    const staged = readdirSync(join(modelsDir, '.partial'), { recursive: true }).map(String);
    expect(
      staged.filter((path) => /model\.onnx|\.whl/.test(path)),
      'no tampered bytes kept for a resume',
    ).to.deep.equal([]);
  });

  it('--starter says the total size before it downloads, then installs one model per task', async () => {
    // The translation model of the set has no real weights here: its pins give way to the hub's
    // metadata for the stand-in served in its place.
    const manifest = structuredClone(SHIPPED);
    const marian = manifest.models.find((model) => model.id === 'opus-mt-en-es')!.source as HuggingFaceSource;
    marian.files = [
      'config.json',
      'generation_config.json',
      'tokenizer.json',
      'tokenizer_config.json',
      'onnx/encoder_model_quantized.onnx',
      'onnx/decoder_model_merged_quantized.onnx',
    ].map((path) => ({ path }));
    const manifestPath = join(dir, 'models.json');
    writeFileSync(manifestPath, JSON.stringify(manifest));
    // With the catalogue beside it, as in the clone: the loader merges it and must keep the starter set.
    cpSync(join(REAL_MODELS_DIR, 'catalog'), join(dir, 'catalog'), { recursive: true });

    const { code, stderr } = await run(['--starter'], manifestPath);
    expect(code, stderr).to.equal(0);
    const lines = stderr.split('\n');
    const summary = lines.findIndex((line) => line.startsWith('starter set, to download: 5 models, '));
    expect(summary, stderr).to.be.greaterThan(-1);
    expect(lines[summary]).to.match(
      /^starter set, to download: 5 models, \d+(\.\d+)? MB \(whisper-tiny\.en [\d.]+ MB, silero-vad-v6 1\.1 MB, piper-en_US-joe-medium [\d.]+ MB, opus-mt-en-es [\d.]+ [kM]B, minilm-sentiment [\d.]+ MB\)$/,
    );
    expect(
      lines.findIndex((line) => / downloading | taking /.test(line)),
      'nothing fetched before the total is said',
    ).to.be.greaterThan(summary);
    expect(stderr).to.include('minilm-embeddings: shares the folder all-MiniLM-L6-v2 with minilm-sentiment, installed once');
    expect(
      readdirSync(modelsDir)
        .filter((name) => !name.startsWith('.'))
        .sort(),
    ).to.deep.equal(['all-MiniLM-L6-v2', 'opus-mt-en-es', 'piper-en_US-joe-medium', 'silero-vad-v6', 'whisper-tiny.en']);
    const piper = JSON.parse(readFileSync(join(modelsDir, 'piper-en_US-joe-medium', '.installed.json'), 'utf8'));
    expect(piper.source).to.deep.include({ revision: 'v1.0.0', commit: 'f'.repeat(40) });
    const again = await run(['--starter'], manifestPath);
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stderr).not.to.include('to download');
    expect(again.stderr).to.match(/done: 0 installed, 6 already installed/);
  });
});
