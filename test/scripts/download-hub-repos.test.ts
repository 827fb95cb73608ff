import { expect } from 'chai';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runDownloadModels } from '../../src/inference/install/download-models-command.js';
import { loadManifest } from '../../src/inference/local-entries.js';
import { folderFiles, mirrorCommit, startHubMirror, type FakeHub, type MirrorRepo } from '../helpers/fake-hub.js';
import { bearer, createTestApp } from '../helpers/test-app.js';

const FIXTURES = new URL('../fixtures/models/', import.meta.url).pathname;
const fixture = (name: string) => folderFiles(join(FIXTURES, name));

/** The random BERT classifier as its hub repo: config, tokenizer, onnx/model.onnx (fp32 only). */
const BERT = fixture('bert-sentiment-random');
/** The random Marian pair as an opus-mt repo: encoder and merged decoder, fp32 and q8. */
const MARIAN = fixture('marian-en-es-random');
/** The random MiniLM as a sentence-transformers repo: modules.json and mean pooling beside the ONNX export. */
const MINILM = {
  ...fixture('minilm-random'),
  'modules.json': Buffer.from(
    JSON.stringify([
      { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
      { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
    ]),
  ),
  '1_Pooling/config.json': Buffer.from(JSON.stringify({ word_embedding_dimension: 32, pooling_mode_cls_token: false, pooling_mode_mean_tokens: true })),
};
/** The random Whisper (fp32 encoder and merged decoder) and NLLB as their hub repos. */
const WHISPER = fixture('whisper-tiny-random');
const NLLB = fixture('nllb-random');
const withoutOnnx = (files: Record<string, Buffer>) => Object.fromEntries(Object.entries(files).filter(([path]) => !path.startsWith('onnx/')));
const flipped = (bytes: Buffer) => {
  const copy = Buffer.from(bytes);
  copy[copy.length - 1] = (copy[copy.length - 1] as number) ^ 0xff;
  return copy;
};

const REPOS: Record<string, MirrorRepo> = {
  'test-org/bert-sentiment-random': { files: BERT, license: 'apache-2.0' },
  'test-org/opus-mt-en-es-random': { files: MARIAN },
  'test-org/minilm-random': { files: MINILM },
  'other-org/minilm-random': { files: MINILM },
  'test-org/tampered-classifier': { files: BERT, tampered: { 'onnx/model.onnx': flipped(BERT['onnx/model.onnx'] as Buffer) } },
  'test-org/llama-tiny': {
    files: { 'config.json': Buffer.from('{"architectures":["LlamaForCausalLM"],"model_type":"llama"}'), 'onnx/model.onnx': Buffer.from('x') },
  },
  'test-org/bert-pytorch-only': { files: { ...withoutOnnx(BERT), 'model.safetensors': Buffer.from('weights') } },
  'test-org/whisper-tiny-random': { files: WHISPER },
  'test-org/cls-pooled': { files: { ...MINILM, '1_Pooling/config.json': Buffer.from('{"pooling_mode_cls_token":true,"pooling_mode_mean_tokens":false}') } },
  'test-org/max-pooled': { files: { ...MINILM, '1_Pooling/config.json': Buffer.from('{"pooling_mode_max_tokens":true,"pooling_mode_mean_tokens":false}') } },
  'test-org/bare-encoder': { files: fixture('minilm-random') },
  'test-org/weights-in-git': { files: BERT, inGit: ['onnx/model.onnx'] },
  'test-org/traversal': { files: { ...BERT, 'onnx/model.onnx_data/../../../escaped.onnx_data': Buffer.from('x') } },
  'test-org/nllb-random': { files: NLLB, treePageSize: 3 },
  'test-org/huge-config': { files: { ...BERT, 'config.json': Buffer.alloc(17 * 1024 * 1024, ' ') } },
  'test-org/kokoro-voiceless': {
    files: Object.fromEntries(Object.entries(fixture('kokoro-random')).filter(([path]) => !path.startsWith('voices/'))),
  },
};

/** One second of silence as 16 kHz mono 16-bit WAV. */
function silentWav(): Buffer {
  const data = Buffer.alloc(32_000);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(16_000, 24);
  header.writeUInt32LE(32_000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

describe('npm run download-models -- hf:<owner>/<repo> (hub mirror)', function () {
  this.timeout(60_000);
  let hub: FakeHub;
  let dir: string;
  let modelsDir: string;
  let manifestPath: string;

  beforeEach(async () => {
    hub = await startHubMirror(REPOS);
    dir = mkdtempSync(join(tmpdir(), 'lis-hf-'));
    modelsDir = join(dir, 'models');
    manifestPath = join(dir, 'models.json');
    // One shipped entry, to clash with.
    writeFileSync(
      manifestPath,
      JSON.stringify({
        models: [
          { id: 'shipped', task: 'translation', engine: 'apertium', description: 'x', license: 'x', options: { pair: 'eng-spa', source: 'en', target: 'es' } },
        ],
      }),
    );
  });
  afterEach(async () => {
    await hub.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function run(args: string[]) {
    let stderr = '';
    let stdout = '';
    const code = await runDownloadModels(args, {
      env: { MODELS_DIR: modelsDir, MODELS_MANIFEST: manifestPath },
      stdout: { write: (chunk: string) => (stdout += chunk) },
      stderr: { isTTY: false, write: (chunk: string) => (stderr += chunk) },
      hub: { connectTimeoutMs: 2000, idleTimeoutMs: 2000 },
    });
    return { code, stderr, stdout };
  }
  const lastLine = (text: string) => text.trim().split('\n').at(-1) as string;

  it('installs a classifier, a Marian pair and a sentence encoder by repo, and serves a request from each', async () => {
    for (const repo of ['test-org/bert-sentiment-random', 'test-org/opus-mt-en-es-random', 'test-org/minilm-random']) {
      const result = await run([`hf:${repo}`, '--hub-url', hub.url]);
      expect(result.code, result.stderr).to.equal(0);
    }
    const entry = JSON.parse(readFileSync(join(modelsDir, 'opus-mt-en-es-random', '.manifest-entry.json'), 'utf8'));
    expect(entry).to.deep.include({ id: 'opus-mt-en-es-random', task: 'translation', engine: 'transformers-translation' });
    expect(entry.options).to.deep.equal({ family: 'marian', source: 'en', target: 'es', dtype: 'q8' });
    expect(entry.source.revision).to.equal(mirrorCommit('test-org/opus-mt-en-es-random'));
    expect(entry.source.files.map((file: { path: string }) => file.path)).to.include.members([
      'onnx/encoder_model_quantized.onnx',
      'onnx/decoder_model_merged_quantized.onnx',
    ]);
    expect(entry.source.files.every((file: { sha256?: string; size?: number }) => /^[0-9a-f]{64}$/.test(file.sha256 ?? '') && file.size! > 0)).to.equal(true);
    const marker = JSON.parse(readFileSync(join(modelsDir, 'bert-sentiment-random', '.installed.json'), 'utf8'));
    expect(marker.source.revision).to.equal(mirrorCommit('test-org/bert-sentiment-random'));

    const listed = await run(['--list']);
    expect(listed.stdout).to.match(/^opus-mt-en-es-random\s+translation\s+\d+(\.\d)? [kM]B\s+en,es\s+see the model card\S* .*\s+no\s+installed$/m);

    const manifest = await loadManifest(manifestPath, modelsDir);
    const app = await createTestApp({ manifest, modelsDir });
    try {
      const models = await app.request.get('/v1/models').set('Authorization', bearer());
      expect(models.body.data.map((model: { id: string }) => model.id)).to.include.members(['bert-sentiment-random', 'opus-mt-en-es-random', 'minilm-random']);
      const classified = await app.request
        .post('/v1/classifications')
        .set('Authorization', bearer())
        .send({ model: 'bert-sentiment-random', query: 'a witty movie' });
      expect(classified.status, classified.text).to.equal(200);
      expect(classified.body.labels.map((label: { label: string }) => label.label).sort()).to.deep.equal(['negative', 'positive']);
      const translated = await app.request
        .post('/v1/engines/opus-mt-en-es-random/translate')
        .set('Authorization', bearer())
        .send({ model: 'opus-mt-en-es-random', text: 'Hi.', target_language: 'es' });
      expect(translated.status, translated.text).to.equal(200);
      const embedded = await app.request.post('/v1/embeddings').set('Authorization', bearer()).send({ model: 'minilm-random', input: 'hello' });
      expect(embedded.status, embedded.text).to.equal(200);
      expect(embedded.body.data[0].embedding).to.have.length(32);
    } finally {
      await app.close();
    }
  });

  it('installs Whisper and an NLLB repo whose file tree comes in pages, and serves a request from each', async () => {
    for (const repo of ['test-org/whisper-tiny-random', 'test-org/nllb-random']) {
      const result = await run([`hf:${repo}`, '--hub-url', hub.url]);
      expect(result.code, result.stderr).to.equal(0);
    }
    expect(hub.requests.filter((request) => request.path.startsWith('/api/models/test-org/nllb-random/tree/'))).to.have.length.above(1);
    const manifest = await loadManifest(manifestPath, modelsDir);
    expect(manifest.models.find((entry) => entry.id === 'nllb-random')?.options).to.deep.equal({ family: 'nllb', dtype: 'fp32' });
    expect(manifest.models.find((entry) => entry.id === 'whisper-tiny-random')).to.deep.include({ task: 'speech-to-text', engine: 'transformers-asr' });
    const app = await createTestApp({ manifest, modelsDir });
    try {
      const transcribed = await app.request
        .post('/v1/audio/transcriptions')
        .set('Authorization', bearer())
        .field('model', 'whisper-tiny-random')
        .attach('file', silentWav(), { filename: 'silence.wav', contentType: 'audio/wav' });
      expect(transcribed.status, transcribed.text).to.equal(200);
      expect(transcribed.body.text).to.be.a('string');
      const translated = await app.request
        .post('/v1/engines/nllb-random/translate')
        .set('Authorization', bearer())
        .send({ model: 'nllb-random', text: 'The house is new.', source_language: 'en', target_language: 'es' });
      expect(translated.status, translated.text).to.equal(200);
    } finally {
      await app.close();
    }
  });

  it('refuses a JSON answer over its size bound', async () => {
    const result = await run(['hf:test-org/huge-config', '--hub-url', hub.url]);
    expect(result.code).to.equal(1);
    expect(lastLine(result.stderr)).to.match(/config\.json answered more than 16777216 bytes$/);
  });

  it('installs under --id, refuses an --id the manifest or another repo already has, and derives a free id for a second repo of one name', async () => {
    expect((await run(['hf:test-org/bert-sentiment-random', '--id', 'my-classifier', '--hub-url', hub.url])).code).to.equal(0);
    expect(existsSync(join(modelsDir, 'my-classifier', '.manifest-entry.json'))).to.equal(true);
    const shipped = await run(['hf:test-org/opus-mt-en-es-random', '--id', 'shipped', '--hub-url', hub.url]);
    expect(shipped.code).to.equal(1);
    expect(lastLine(shipped.stderr)).to.equal(
      'error: hf:test-org/opus-mt-en-es-random: model id "shipped" is already taken by a model of the shipped manifest; pass --id <another id>',
    );
    const other = await run(['hf:test-org/minilm-random', '--id', 'my-classifier', '--hub-url', hub.url]);
    expect(lastLine(other.stderr)).to.match(/model id "my-classifier" is already taken by hf:test-org\/bert-sentiment-random/);
    // Two repos of one name in one run: the second gets its owner's name in front (test/scripts/download-piper-voices.test.ts has more).
    const twins = await run(['hf:test-org/minilm-random', 'hf:other-org/minilm-random', '--hub-url', hub.url]);
    expect(twins.code, twins.stderr).to.equal(0);
    expect(twins.stderr).to.include(
      'other-org-minilm-random: model id "minilm-random" is taken by hf:test-org/minilm-random, installed by this run; installing hf:other-org/minilm-random as "other-org-minilm-random"',
    );
    expect(existsSync(join(modelsDir, 'minilm-random', '.manifest-entry.json'))).to.equal(true);
    expect(existsSync(join(modelsDir, 'other-org-minilm-random', '.manifest-entry.json'))).to.equal(true);
    const again = await run(['hf:test-org/bert-sentiment-random', '--id', 'my-classifier', '--hub-url', hub.url]);
    expect(again.code).to.equal(0);
    expect(again.stderr).to.match(/already installed/);
  });

  it('refuses a file whose bytes do not match the published SHA-256 and leaves nothing installed', async () => {
    const result = await run(['hf:test-org/tampered-classifier', '--hub-url', hub.url]);
    expect(result.code).to.equal(1);
    expect(result.stderr).to.match(/sha256 mismatch for tampered-classifier\/onnx\/model\.onnx/);
    expect(existsSync(join(modelsDir, 'tampered-classifier'))).to.equal(false);
    expect((await loadManifest(manifestPath, modelsDir)).models.map((entry) => entry.id)).to.deep.equal(['shipped']);
  });

  it('refuses weights the hub publishes no SHA-256 for', async () => {
    const result = await run(['hf:test-org/weights-in-git', '--hub-url', hub.url]);
    expect(result.code).to.equal(1);
    expect(lastLine(result.stderr)).to.equal(
      'error: test-org/weights-in-git: the hub publishes no SHA-256 (LFS) for onnx/model.onnx; refusing weights that cannot be verified',
    );
    expect(existsSync(join(modelsDir, 'weights-in-git'))).to.equal(false);
  });

  it('takes only the exact weight file names from the tree, not paths that climb out of the model folder', async () => {
    const result = await run(['hf:test-org/traversal', '--hub-url', hub.url]);
    expect(result.code, result.stderr).to.equal(0);
    const entry = JSON.parse(readFileSync(join(modelsDir, 'traversal', '.manifest-entry.json'), 'utf8'));
    expect(entry.source.files.map((file: { path: string }) => file.path)).to.deep.equal([
      'config.json',
      'tokenizer.json',
      'tokenizer_config.json',
      'onnx/model.onnx',
    ]);
    expect(existsSync(join(dir, 'escaped.onnx_data'))).to.equal(false);
  });

  it('names the supported architectures in one line for an unsupported one', async () => {
    const result = await run(['hf:test-org/llama-tiny', '--hub-url', hub.url]);
    expect(result.code).to.equal(1);
    expect(lastLine(result.stderr)).to.match(
      /^error: test-org\/llama-tiny: unsupported architecture LlamaForCausalLM; supported: WhisperForConditionalGeneration .*sentence-transformers/,
    );
    expect(existsSync(join(modelsDir, 'llama-tiny'))).to.equal(false);
  });

  it('installs a bare encoder without modules.json and a CLS-pooled one as embeddings, and refuses max pooling in one line', async () => {
    expect((await run(['hf:test-org/bare-encoder', '--hub-url', hub.url])).code).to.equal(0);
    expect((await run(['hf:test-org/cls-pooled', '--hub-url', hub.url])).code).to.equal(0);
    const manifest = await loadManifest(manifestPath, modelsDir);
    expect(manifest.models.find((entry) => entry.id === 'bare-encoder')).to.deep.include({ engine: 'sentence-embedding', options: { dtype: 'fp32' } });
    expect(manifest.models.find((entry) => entry.id === 'cls-pooled')?.options).to.deep.equal({ pooling: 'cls', dtype: 'fp32' });
    const max = await run(['hf:test-org/max-pooled', '--hub-url', hub.url]);
    expect(max.code).to.equal(1);
    expect(lastLine(max.stderr)).to.equal(
      'error: test-org/max-pooled: sentence embeddings with pooling_mode_max_tokens are not served (mean or CLS pooling only)',
    );
  });

  it('refuses a Kokoro repo without voices in one line (Kokoro end to end: test/http/text-to-speech-kokoro.slow.test.ts)', async () => {
    const result = await run(['hf:test-org/kokoro-voiceless', '--hub-url', hub.url]);
    expect(result.code).to.equal(1);
    expect(lastLine(result.stderr)).to.equal('error: test-org/kokoro-voiceless has no voices (voices/*.bin), which Kokoro needs');
  });

  it('says in one line that a repo without ONNX files is not converted', async () => {
    const result = await run(['hf:test-org/bert-pytorch-only', '--hub-url', hub.url]);
    expect(result.code).to.equal(1);
    expect(lastLine(result.stderr)).to.equal(
      'error: test-org/bert-pytorch-only has no ONNX files (onnx/*.onnx); this server does not convert models: pick a repo with an ONNX export',
    );
  });

  it('resumes a weight file whose download was cut, with a Range request', async () => {
    const path = `/test-org/opus-mt-en-es-random/resolve/${mirrorCommit('test-org/opus-mt-en-es-random')}/onnx/decoder_model_merged_quantized.onnx`;
    hub.cutOnce.add(path);
    const result = await run(['hf:test-org/opus-mt-en-es-random', '--hub-url', hub.url]);
    expect(result.code, result.stderr).to.equal(0);
    const fetches = hub.requests.filter((request) => request.path === path);
    expect(fetches).to.have.length(2);
    expect(fetches[1]?.range).to.match(/^bytes=\d+-$/);
    expect(
      readFileSync(join(modelsDir, 'opus-mt-en-es-random', 'onnx', 'decoder_model_merged_quantized.onnx')).equals(
        MARIAN['onnx/decoder_model_merged_quantized.onnx'] as Buffer,
      ),
    ).to.equal(true);
  });
});
