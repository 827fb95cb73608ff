/**
 * The catalogue through a hub mirror on loopback (HF_ENDPOINT), over real HTTP: hub repos of each
 * architecture the catalogue names, laid out as the real repos are but holding the tiny
 * random-weight fixtures (test/fixtures/models/), installed by `hf:` and by catalogue id, then
 * each serving one request of its task. Random weights: only shapes and plumbing are checked.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runDownloadModels } from '../../src/inference/install/download-models-command.js';
import { formatBytes } from '../../src/inference/install/progress-bar.js';
import { loadManifest } from '../../src/inference/local-entries.js';
import { readManifest, type Manifest, type ManifestEntry } from '../../src/inference/manifest.js';
import { knownSize } from '../../src/inference/model-size.js';
import { piperVoiceEntries, type PiperVoice } from '../../scripts/catalog/piper-voices.js';
import { closedPortUrl, folderFiles, mirrorCommit, startHubMirror, type FakeHub, type MirrorRepo } from '../helpers/fake-hub.js';
import { bearer, createTestApp, type TestApp } from '../helpers/test-app.js';

const FIXTURES = new URL('../fixtures/models/', import.meta.url).pathname;
const fixture = (name: string) => folderFiles(join(FIXTURES, name));
const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');
const flipped = (bytes: Buffer) => Buffer.from(bytes.map((byte, index) => (index === bytes.length - 1 ? byte ^ 0xff : byte)));

/** multilingual-e5's sentence-transformers config names its prompts; the random MiniLM stands in for the weights. */
const E5 = {
  ...fixture('minilm-random'),
  'config_sentence_transformers.json': Buffer.from(JSON.stringify({ prompts: { query: 'query: ', passage: 'passage: ' }, default_prompt_name: null })),
};

/** A piper-voices tree: <family>/<code>/<name>/<quality>/<key>.onnx, .onnx.json, MODEL_CARD. */
const VOICE = fixture('piper-random');
function voice(key: string): { files: Record<string, Buffer>; entry: PiperVoice } {
  const [code, name, quality] = key.split('-') as [string, string, string];
  const dir = `en/${code}/${name}/${quality}`;
  const files = {
    [`${dir}/${key}.onnx`]: VOICE['piper-random.onnx'] as Buffer,
    [`${dir}/${key}.onnx.json`]: VOICE['piper-random.onnx.json'] as Buffer,
    [`${dir}/MODEL_CARD`]: Buffer.from(`# Model card for ${key}\n\nRandom weights: a test fixture, not a voice.\n`),
  };
  const entry: PiperVoice = {
    key,
    name,
    language: { code, family: 'en', region: 'US', name_native: 'English', name_english: 'English', country_english: 'United States' },
    quality,
    num_speakers: 1,
    speaker_id_map: {},
    files: Object.fromEntries(Object.entries(files).map(([path, bytes]) => [path, { size_bytes: bytes.length, md5_digest: md5(bytes) }])),
    aliases: [],
  };
  return { files, entry };
}
const GOOD_VOICE = voice('en_US-random-x_low');
/** What --list shows for it: the sum of the sizes voices.json gives. */
const GOOD_VOICE_SIZE = formatBytes(Object.values(GOOD_VOICE.files).reduce((sum, bytes) => sum + bytes.length, 0));
const TAMPERED_VOICE = voice('en_US-tampered-x_low');
const TAMPERED_ONNX = 'en/en_US/tampered/x_low/en_US-tampered-x_low.onnx';

const M2M100 = fixture('m2m100-random');
const REPOS: Record<string, MirrorRepo> = {
  'onnx-community/whisper-large-v3-turbo': { files: fixture('whisper-v3-turbo-random'), license: 'mit' },
  'Xenova/opus-mt-en-es': { files: fixture('marian-en-es-random') },
  'Xenova/m2m100_418M': { files: M2M100, license: 'mit' },
  'test-org/m2m100-tampered': {
    files: M2M100,
    tampered: { 'onnx/decoder_model_merged_quantized.onnx': flipped(M2M100['onnx/decoder_model_merged_quantized.onnx'] as Buffer) },
  },
  'Xenova/distilbert-base-uncased-finetuned-sst-2-english': { files: fixture('bert-sentiment-random'), license: 'apache-2.0' },
  'Xenova/multilingual-e5-small': { files: E5 },
  // voices.json pins piper-voices by md5 at "main"; the install resolves that branch to the mirror's commit.
  'rhasspy/piper-voices': {
    // The hub publishes (and its SHA-256 vouches for) other bytes than those voices.json's md5 names.
    files: { ...GOOD_VOICE.files, ...TAMPERED_VOICE.files, [TAMPERED_ONNX]: flipped(TAMPERED_VOICE.files[TAMPERED_ONNX] as Buffer) },
  },
};

/** Catalogue entries of the shapes models/catalog/ ships, pointing at the mirror's repos (the fixtures have fp32 or q8 weights). */
const HUB_ENTRIES: ManifestEntry[] = [
  {
    id: 'whisper-large-v3-turbo',
    task: 'speech-to-text',
    engine: 'transformers-asr',
    description: 'random-weight large-v3-turbo shape: 128 mel bins, 4-layer decoder',
    license: 'MIT',
    languages: ['en'],
    realWeightsRunHere: false,
    options: { dtype: 'fp32' },
    hubRepo: { repo: 'onnx-community/whisper-large-v3-turbo', revision: mirrorCommit('onnx-community/whisper-large-v3-turbo') },
  },
  {
    id: 'm2m100-unpinned',
    task: 'translation',
    engine: 'transformers-translation',
    description: 'M2M100 by catalogue id, no commit pinned',
    license: 'MIT',
    realWeightsRunHere: false,
    options: { family: 'm2m100', dtype: 'q8' },
    hubRepo: { repo: 'Xenova/m2m100_418M', revision: 'main' },
  },
  {
    id: 'm2m100-tampered',
    task: 'translation',
    engine: 'transformers-translation',
    description: 'a repo whose served decoder is not the one its LFS SHA-256 names',
    license: 'MIT',
    realWeightsRunHere: false,
    options: { family: 'm2m100', dtype: 'q8' },
    hubRepo: { repo: 'test-org/m2m100-tampered', revision: 'main' },
  },
];

/** One second of silence as 16 kHz mono 16-bit WAV. */
function silentWav(): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + 32_000, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(16_000, 24);
  header.writeUInt32LE(32_000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(32_000, 40);
  return Buffer.concat([header, Buffer.alloc(32_000)]);
}

const binary = (res: unknown, callback: (error: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  (res as NodeJS.ReadableStream).on('data', (chunk: Buffer) => chunks.push(chunk));
  (res as NodeJS.ReadableStream).on('end', () => callback(null, Buffer.concat(chunks)));
};

/** The rows of --list: id and the SIZE column (header and footer left out). */
function listedSizes(stdout: string): Map<string, string> {
  const rows = stdout.split('\n').filter((line) => line !== '' && !line.startsWith('ID ') && !line.startsWith('?, +:') && !line.startsWith('~:'));
  return new Map(rows.map((line) => line.split(/ {2,}/)).map(([id, , size]) => [id as string, size as string]));
}

describe('the catalogue through a hub mirror (HF_ENDPOINT)', function () {
  this.timeout(120_000);
  let hub: FakeHub;
  let dir: string;
  let modelsDir: string;
  let manifestPath: string;

  before(async () => {
    hub = await startHubMirror(REPOS);
    dir = mkdtempSync(join(tmpdir(), 'lis-catalog-'));
    modelsDir = join(dir, 'models');
    manifestPath = join(dir, 'models.json');
    writeFileSync(manifestPath, JSON.stringify({ models: [] }));
    mkdirSync(join(dir, 'catalog'));
    writeFileSync(join(dir, 'catalog', 'hub.json'), JSON.stringify({ models: HUB_ENTRIES }));
    const voices = { [GOOD_VOICE.entry.key]: GOOD_VOICE.entry, [TAMPERED_VOICE.entry.key]: TAMPERED_VOICE.entry };
    writeFileSync(
      join(dir, 'catalog', 'piper-voices.json'),
      JSON.stringify({ models: piperVoiceEntries(voices, { repo: 'rhasspy/piper-voices', revision: 'main' }) }),
    );
  });
  after(async () => {
    await hub?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function run(args: string[], env: Record<string, string> = {}) {
    let stderr = '';
    let stdout = '';
    const code = await runDownloadModels(args, {
      env: { MODELS_DIR: modelsDir, MODELS_MANIFEST: manifestPath, HF_ENDPOINT: hub.url, ...env },
      stdout: { write: (chunk: string) => (stdout += chunk) },
      stderr: { isTTY: false, write: (chunk: string) => (stderr += chunk) },
      hub: { connectTimeoutMs: 2000, idleTimeoutMs: 2000 },
    });
    return { code, stderr, stdout };
  }

  it('--list shows a size for every entry: pinned in the catalogue, or from the mirror’s file tree', async () => {
    const { code, stdout } = await run(['--list']);
    expect(code).to.equal(0);
    const sizes = listedSizes(stdout);
    expect([...sizes.keys()]).to.have.members([...HUB_ENTRIES.map((entry) => entry.id), 'piper-en_US-random-x_low', 'piper-en_US-tampered-x_low']);
    for (const [id, size] of sizes) expect(size, id).to.match(/^~?\d+(\.\d)? [kMG]?B( \(hub\))?$/);
    expect(sizes.get('whisper-large-v3-turbo')).to.match(/ \(hub\)$/);
    expect(sizes.get('piper-en_US-random-x_low')).to.equal(GOOD_VOICE_SIZE);
    expect(stdout).to.not.match(/^\?, \+:/m);
  });

  it('--list says which sizes it could not read when the hub does not answer', async () => {
    const { stdout } = await run(['--list'], { HF_ENDPOINT: await closedPortUrl() });
    const sizes = listedSizes(stdout);
    expect(sizes.get('whisper-large-v3-turbo')).to.equal('?');
    expect(sizes.get('piper-en_US-random-x_low')).to.equal(GOOD_VOICE_SIZE);
    expect(stdout).to.match(/^\?, \+: the catalogue does not size these files and the hub \(http:\/\/127\.0\.0\.1:\d+\) did not say/m);
  });

  it('installs hf: repos of each architecture and catalogue ids, says their size first, and serves a request from each', async () => {
    for (const args of [
      ['hf:onnx-community/whisper-large-v3-turbo', '--id', 'turbo-by-repo'],
      ['hf:Xenova/opus-mt-en-es'],
      ['hf:Xenova/m2m100_418M'],
      ['hf:Xenova/distilbert-base-uncased-finetuned-sst-2-english', '--id', 'sst2-random'],
      ['hf:Xenova/multilingual-e5-small', '--id', 'e5-random'],
      ['whisper-large-v3-turbo', 'm2m100-unpinned', 'piper-en_US-random-x_low'],
    ]) {
      const result = await run(args);
      expect(result.code, result.stderr).to.equal(0);
      expect(result.stderr).to.match(/^to download: \d+ models?, \d+(\.\d)? [kM]B \(/m);
    }
    const manifest = await loadManifest(manifestPath, modelsDir);
    const entry = (id: string) => manifest.models.find((model) => model.id === id) as ManifestEntry;
    expect(entry('m2m100_418m').options).to.deep.equal({ family: 'm2m100', dtype: 'q8' });
    expect(entry('e5-random').options).to.deep.equal({ prefixes: { query: 'query: ', passage: 'passage: ' }, dtype: 'fp32' });
    // A catalogue id installs under the catalogue's own entry; an unpinned one records the commit it got.
    expect(existsSync(join(modelsDir, 'whisper-large-v3-turbo', '.manifest-entry.json'))).to.equal(false);
    const record = JSON.parse(readFileSync(join(modelsDir, 'm2m100-unpinned', '.installed.json'), 'utf8'));
    expect(record.source).to.deep.include({ repo: 'Xenova/m2m100_418M', revision: mirrorCommit('Xenova/m2m100_418M') });
    const voiceRecord = JSON.parse(readFileSync(join(modelsDir, 'piper-en_US-random-x_low', '.installed.json'), 'utf8'));
    expect(voiceRecord.files.map((file: { path: string }) => file.path).sort()).to.deep.equal([
      'MODEL_CARD',
      'en_US-random-x_low.onnx',
      'en_US-random-x_low.onnx.json',
    ]);
    expect((await run(['m2m100-unpinned'])).stderr).to.match(/m2m100-unpinned: already installed/);

    const app: TestApp = await createTestApp({ manifest, modelsDir });
    try {
      const post = (path: string, body: object) => app.request.post(path).set('Authorization', bearer()).send(body);
      for (const model of ['turbo-by-repo', 'whisper-large-v3-turbo']) {
        const transcribed = await app.request
          .post('/v1/audio/transcriptions')
          .set('Authorization', bearer())
          .field('model', model)
          .attach('file', silentWav(), { filename: 'silence.wav', contentType: 'audio/wav' });
        expect(transcribed.status, transcribed.text).to.equal(200);
        expect(transcribed.body.text).to.be.a('string');
      }
      const marian = await post('/v1/engines/opus-mt-en-es/translate', { model: 'opus-mt-en-es', text: 'The house is new.', target_language: 'es' });
      expect(marian.status, marian.text).to.equal(200);
      for (const model of ['m2m100_418m', 'm2m100-unpinned']) {
        const m2m = await post(`/v1/engines/${model}/translate`, { model, text: 'The house is new.', source_language: 'en', target_language: 'fr' });
        expect(m2m.status, m2m.text).to.equal(200);
        expect(m2m.body.translation).to.be.a('string').and.not.equal('');
      }
      const classified = await post('/v1/classifications', { model: 'sst2-random', query: 'a witty movie' });
      expect(classified.status, classified.text).to.equal(200);
      const [passage, query] = await Promise.all(
        [undefined, 'query'].map((inputType) =>
          post('/v1/embeddings', { model: 'e5-random', input: 'a cat', ...(inputType ? { input_type: inputType } : {}) }),
        ),
      );
      expect(passage?.status, passage?.text).to.equal(200);
      expect(query?.body.data[0].embedding).to.not.deep.equal(passage?.body.data[0].embedding);
      const speech = await app.request
        .post('/v1/audio/speech')
        .set('Authorization', bearer())
        .send({ model: 'piper-en_US-random-x_low', voice: 'alloy', input: 'Hello world.', response_format: 'wav' })
        .buffer(true)
        .parse(binary);
      expect(speech.status).to.equal(200);
      expect((speech.body as Buffer).subarray(0, 4).toString()).to.equal('RIFF');
      const models = (await app.request.get('/v1/models').set('Authorization', bearer())).body.data as Array<Record<string, unknown>>;
      expect(models.find((model) => model.id === 'piper-en_US-random-x_low')).to.deep.include({
        installed: true,
        languages: ['en-US'],
        real_weights_run_here: false,
      });
      expect(models.find((model) => model.id === 'm2m100-unpinned')?.languages).to.have.length(100);
    } finally {
      await app.close();
    }
  });

  it('installs a catalogue model the hub lists the files of from a copy of another install (--from), offline', async () => {
    const offline = join(dir, 'offline');
    cpSync(join(modelsDir, 'whisper-large-v3-turbo'), join(offline, 'whisper-large-v3-turbo'), { recursive: true });
    const elsewhere = join(dir, 'elsewhere');
    const closed = await closedPortUrl();
    const imported = await run(['--from', offline], { MODELS_DIR: elsewhere, HF_ENDPOINT: closed });
    expect(imported.code, imported.stderr).to.equal(0);
    expect(JSON.parse(readFileSync(join(elsewhere, 'whisper-large-v3-turbo', '.installed.json'), 'utf8')).source).to.deep.include({
      repo: 'onnx-community/whisper-large-v3-turbo',
      revision: mirrorCommit('onnx-community/whisper-large-v3-turbo'),
    });
    // Without the record of the install that made the copy, nothing pins its files.
    rmSync(join(offline, 'whisper-large-v3-turbo', '.installed.json'));
    const unpinned = await run(['whisper-large-v3-turbo', '--from', offline, '--force'], { MODELS_DIR: join(dir, 'third'), HF_ENDPOINT: closed });
    expect(unpinned.code).to.equal(1);
    expect(unpinned.stderr).to.match(/copy the whole folder of an install \(with its \.installed\.json\)/);
  });

  it('refuses a file whose bytes do not match the published SHA-256 or md5, leaving nothing installed', async () => {
    const lfs = await run(['m2m100-tampered']);
    expect(lfs.code).to.equal(1);
    expect(lfs.stderr).to.match(/sha256 mismatch for m2m100-tampered\/onnx\/decoder_model_merged_quantized\.onnx/);
    const md5 = await run(['piper-en_US-tampered-x_low']);
    expect(md5.code).to.equal(1);
    expect(md5.stderr).to.match(/md5 mismatch for piper-en_US-tampered-x_low\/en_US-tampered-x_low\.onnx/);
    for (const id of ['m2m100-tampered', 'piper-en_US-tampered-x_low']) expect(existsSync(join(modelsDir, id)), id).to.equal(false);
  });
});

/**
 * The shipped manifest and catalogue, listed against a mirror that holds a stand-in of every repo
 * whose files the catalogue does not size (at the pinned revision, with the weight files the
 * entry's dtype names): every line of --list then has a size.
 */
describe('--list of the shipped catalogue', () => {
  const SUFFIX: Record<string, string> = { fp32: '', q8: '_quantized', int8: '_int8', fp16: '_fp16' };
  const small = (text: string) => Buffer.from(text);

  /** A repo that the hf: planner reads as this entry's architecture. */
  function standIn(entry: ManifestEntry): Record<string, Buffer> {
    const options = entry.options ?? {};
    const suffix = SUFFIX[(options.dtype as string) ?? 'fp32'] as string;
    const tokenizer = { 'tokenizer.json': small('{}'), 'tokenizer_config.json': small('{}') };
    const seq2seq = { [`onnx/encoder_model${suffix}.onnx`]: Buffer.alloc(1000), [`onnx/decoder_model_merged${suffix}.onnx`]: Buffer.alloc(2000) };
    if (entry.task === 'speech-to-text') {
      return {
        'config.json': small('{"architectures":["WhisperForConditionalGeneration"],"model_type":"whisper"}'),
        'generation_config.json': small('{}'),
        'preprocessor_config.json': small('{}'),
        ...tokenizer,
        ...seq2seq,
      };
    }
    if (entry.task === 'translation') {
      const marian = options.family === 'marian';
      return {
        'config.json': small(
          marian ? '{"architectures":["MarianMTModel"],"model_type":"marian"}' : '{"architectures":["M2M100ForConditionalGeneration"],"model_type":"m2m_100"}',
        ),
        ...tokenizer,
        'tokenizer_config.json': small(
          JSON.stringify(marian ? { source_lang: options.source, target_lang: options.target } : { tokenizer_class: 'M2M100Tokenizer' }),
        ),
        ...seq2seq,
      };
    }
    return {
      'config.json': small('{"architectures":["BertModel"],"model_type":"bert"}'),
      ...(options.pooling === 'cls' ? { '1_Pooling/config.json': small('{"pooling_mode_cls_token":true,"pooling_mode_mean_tokens":false}') } : {}),
      ...tokenizer,
      [`onnx/model${suffix}.onnx`]: Buffer.alloc(1000),
    };
  }

  function mirrorOf(manifest: Manifest): Record<string, MirrorRepo> {
    const repos: Record<string, MirrorRepo> = {};
    for (const entry of manifest.models.filter((model) => !knownSize(model))) {
      if (entry.source?.type === 'huggingface') {
        const files = Object.fromEntries(entry.source.files.map((file) => [file.path, Buffer.alloc(file.size ?? 100)]));
        repos[entry.source.repo] = { commit: entry.source.revision, files: { ...repos[entry.source.repo]?.files, ...files } };
      } else if (entry.hubRepo) {
        const { repo, revision } = entry.hubRepo;
        repos[repo] = { files: standIn(entry), ...(revision === 'main' ? {} : { commit: revision }) };
      }
    }
    return repos;
  }

  it('shows a size for every entry when the hub answers', async function () {
    this.timeout(60_000);
    const manifest = await readManifest('models/models.json');
    const hub = await startHubMirror(mirrorOf(manifest));
    const modelsDir = mkdtempSync(join(tmpdir(), 'lis-list-'));
    try {
      let stdout = '';
      const code = await runDownloadModels(['--list'], {
        env: { MODELS_DIR: modelsDir, MODELS_MANIFEST: 'models/models.json', HF_ENDPOINT: hub.url },
        stdout: { write: (chunk: string) => (stdout += chunk) },
        stderr: { isTTY: false, write: () => true },
      });
      expect(code).to.equal(0);
      const sizes = listedSizes(stdout);
      expect(sizes.size).to.equal(manifest.models.length);
      for (const [id, size] of sizes) expect(size, id).to.match(/^~?\d+(\.\d)? [kMG]?B( \(hub\))?$/);
    } finally {
      await hub.close();
      rmSync(modelsDir, { recursive: true, force: true });
    }
  });
});
