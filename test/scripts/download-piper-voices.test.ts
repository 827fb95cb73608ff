/**
 * `download-models hf:` for Piper voices and for repos whose name a model already has, through a
 * hub mirror on 127.0.0.1: rhasspy/piper-voices laid out as on the hub (the real joe-medium voice,
 * from models/, among random-weight ones), a single-voice repo, and onnx-community/whisper-tiny.en
 * beside a shipped `whisper-tiny.en`. The joe voice is installed by `hf:`, then served and spoken.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runDownloadModels } from '../../src/inference/install/download-models-command.js';
import { loadManifest } from '../../src/inference/local-entries.js';
import type { ManifestEntry } from '../../src/inference/manifest.js';
import { folderFiles, startHubMirror, type FakeHub, type MirrorRepo } from '../helpers/fake-hub.js';
import { REAL_MODELS_DIR, realModel } from '../helpers/real-models.js';
import { bearer, createTestApp } from '../helpers/test-app.js';

const FIXTURES = new URL('../fixtures/models/', import.meta.url).pathname;
const JOE = 'piper-en_US-joe-medium';
const JOE_DIR = 'en/en_US/joe/medium';
const RANDOM = folderFiles(join(FIXTURES, 'piper-random'));
const randomVoice = (config: object = {}) => ({
  onnx: RANDOM['piper-random.onnx'] as Buffer,
  json: Buffer.from(JSON.stringify({ ...JSON.parse((RANDOM['piper-random.onnx.json'] as Buffer).toString()), ...config })),
});

/** Thirteen random-weight voices in rhasspy's layout, beside joe: more than the error line names. */
const OTHER_KEYS = ['ar_JO-kareem-low', 'ca_ES-upc_ona-x_low', 'cs_CZ-jirka-medium', 'da_DK-talesyntese-medium', 'de_DE-thorsten-high'].concat(
  ['es_ES-davefx-medium', 'fi_FI-harri-low', 'fr_FR-siwis-low', 'it_IT-riccardo-x_low', 'nl_NL-mls-medium', 'pt_PT-tugão-medium'],
  ['sv_SE-nst-medium', 'zh_CN-huayan-x_low'],
);

function rhasspyRepo(): MirrorRepo {
  const joe = folderFiles(join(REAL_MODELS_DIR, JOE));
  const files: Record<string, Buffer> = {
    'README.md': Buffer.from('---\nlicense: mit\n---\n# Piper voices\n'),
    'voices.json': Buffer.from('{}'),
    [`${JOE_DIR}/en_US-joe-medium.onnx`]: joe['en_US-joe-medium.onnx'] as Buffer,
    [`${JOE_DIR}/en_US-joe-medium.onnx.json`]: joe['en_US-joe-medium.onnx.json'] as Buffer,
    [`${JOE_DIR}/MODEL_CARD`]: joe.MODEL_CARD as Buffer,
  };
  for (const key of OTHER_KEYS) {
    const [code, name, quality] = key.split('-') as [string, string, string];
    const dir = `${code.split('_')[0]}/${code}/${name}/${quality}`;
    const voice = randomVoice();
    files[`${dir}/${key}.onnx`] = voice.onnx;
    files[`${dir}/${key}.onnx.json`] = voice.json;
    files[`${dir}/MODEL_CARD`] = Buffer.from(`# Model card for ${name} (${quality})\n`);
  }
  return { files, license: 'mit', refs: ['v1.0.0'] };
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('npm run download-models -- hf: Piper voices, and a free id for a taken name (hub mirror)', function () {
  this.timeout(120_000);
  const joe = realModel(JOE);
  let hub: FakeHub;
  let dir: string;
  let modelsDir: string;
  let manifestPath: string;

  before(async function () {
    if (!joe.installed || !joe.entry) return this.skip();
    const voice = randomVoice();
    hub = await startHubMirror({
      'rhasspy/piper-voices': rhasspyRepo(),
      'test-org/piper-random-voice': {
        files: { 'piper-random.onnx': voice.onnx, 'piper-random.onnx.json': voice.json, 'README.md': Buffer.from('# a voice\n') },
      },
      'test-org/text-phonemes': { files: { 'v/text.onnx': voice.onnx, 'v/text.onnx.json': randomVoice({ phoneme_type: 'text' }).json } },
      'test-org/voice-in-git': { files: { 'voice.onnx': voice.onnx, 'voice.onnx.json': voice.json }, inGit: ['voice.onnx'] },
      'onnx-community/whisper-tiny.en': { files: folderFiles(join(FIXTURES, 'whisper-tiny-random')) },
      'other-org/whisper-tiny.en': { files: folderFiles(join(FIXTURES, 'whisper-tiny-random')) },
    });
  });
  after(() => hub?.close());

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lis-piper-hf-'));
    modelsDir = join(dir, 'models');
    manifestPath = join(dir, 'models.json');
    // The shipped ids the hub repos' names collide with, as models/models.json has them.
    const whisper: ManifestEntry = {
      id: 'whisper-tiny.en',
      task: 'speech-to-text',
      engine: 'transformers-asr',
      description: 'shipped',
      license: 'MIT',
      source: { type: 'huggingface', repo: 'Xenova/whisper-tiny.en', revision: 'main', files: [{ path: 'config.json' }] },
    };
    writeFileSync(manifestPath, JSON.stringify({ models: [joe.entry, whisper] }));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function run(args: string[]) {
    let stderr = '';
    let stdout = '';
    const code = await runDownloadModels([...args, '--hub-url', hub.url], {
      env: { MODELS_DIR: modelsDir, MODELS_MANIFEST: manifestPath },
      stdout: { write: (chunk: string) => (stdout += chunk) },
      stderr: { isTTY: false, write: (chunk: string) => (stderr += chunk) },
      hub: { connectTimeoutMs: 2000, idleTimeoutMs: 5000 },
    });
    const errors = stderr.split('\n').filter((line) => line.startsWith('error:'));
    return { code, stderr, stdout, errors };
  }
  /** Weights fetched from the mirror since `from` requests. */
  const fetchedOnnx = (from: number) => hub.requests.slice(from).filter((request) => request.path.includes('/resolve/') && request.path.endsWith('.onnx'));

  it('installs joe from the rhasspy layout by hf:<repo>:<voice> under a free id, serves it and speaks', async () => {
    // The manifest's joe is pinned at v1.0.0; this asks for main, so it is another install of the voice.
    const result = await run(['hf:rhasspy/piper-voices:en_US-joe-medium']);
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stderr).to.include(
      `rhasspy-${JOE}: model id "${JOE}" is taken by the shipped manifest's entry of this voice (npm run download-models -- ${JOE} installs that one); ` +
        `installing hf:rhasspy/piper-voices:en_US-joe-medium as "rhasspy-${JOE}" (--id picks another)`,
    );
    const folder = join(modelsDir, `rhasspy-${JOE}`);
    expect(readdirSync(folder).sort()).to.deep.equal([
      '.installed.json',
      '.manifest-entry.json',
      'MODEL_CARD',
      'en_US-joe-medium.onnx',
      'en_US-joe-medium.onnx.json',
    ]);
    const entry = JSON.parse(readFileSync(join(folder, '.manifest-entry.json'), 'utf8')) as ManifestEntry;
    expect(entry).to.deep.include({ id: `rhasspy-${JOE}`, task: 'text-to-speech', engine: 'piper', languages: ['en-US'] });
    expect(entry.description).to.match(/^Piper voice en_US-joe-medium \(English, United States; medium quality; one speaker\) from rhasspy\/piper-voices/);
    expect(entry.license).to.match(/^mit \(repo card\); the voice's dataset: see MODEL_CARD/);
    const onnx = entry.source?.files.find((file) => file.path.endsWith('.onnx'));
    expect(onnx).to.deep.include({ path: `${JOE_DIR}/en_US-joe-medium.onnx`, target: 'en_US-joe-medium.onnx' });
    expect(onnx?.sha256).to.equal(sha256(readFileSync(join(REAL_MODELS_DIR, JOE, 'en_US-joe-medium.onnx'))));
    expect(entry.source?.files.every((file) => /^[0-9a-f]{64}$/.test(file.sha256 ?? '') && file.size! > 0)).to.equal(true);

    // The same voice again, by --voice: the install it made, not a third id.
    const again = await run(['hf:rhasspy/piper-voices', '--voice', 'en_US-joe-medium']);
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stderr).to.match(new RegExp(`rhasspy-${JOE}: already installed`));
    expect(readdirSync(modelsDir).filter((name) => !name.startsWith('.'))).to.deep.equal([`rhasspy-${JOE}`]);

    const manifest = await loadManifest(manifestPath, modelsDir);
    const app = await createTestApp({ manifest, modelsDir });
    try {
      const models = await app.request.get('/v1/models').set('Authorization', bearer());
      expect(models.body.data.map((model: { id: string }) => model.id)).to.include(`rhasspy-${JOE}`);
      const spoken = await app.request
        .post('/v1/audio/speech')
        .set('Authorization', bearer())
        .send({ model: `rhasspy-${JOE}`, voice: 'alloy', input: 'The voice came from the hub.', response_format: 'wav' })
        .buffer(true)
        .parse((res, callback) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => callback(null, Buffer.concat(chunks)));
        });
      expect(spoken.status, String(spoken.body)).to.equal(200);
      const wav = spoken.body as Buffer;
      expect(wav.subarray(0, 4).toString('ascii')).to.equal('RIFF');
      expect(wav.readUInt32LE(24), 'joe speaks at 22.05 kHz').to.equal(22050);
      const samples = new Int16Array(wav.buffer.slice(wav.byteOffset + 44, wav.byteOffset + wav.length - ((wav.length - 44) % 2)));
      expect(samples.length / 22050, 'seconds of speech').to.be.within(1, 6);
      const rms = Math.sqrt(samples.reduce((sum, sample) => sum + sample * sample, 0) / samples.length) / 32768;
      expect(rms, 'not silence').to.be.above(0.01);
    } finally {
      await app.close();
    }
  });

  it("installs the manifest's own entry of a voice when hf: names its repo, revision and voice", async () => {
    const result = await run(['hf:rhasspy/piper-voices@v1.0.0', '--voice', 'en_US-joe-medium']);
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stderr).to.include(
      `${JOE}: hf:rhasspy/piper-voices@v1.0.0:en_US-joe-medium is this model of the manifest (the same repo, revision and voice); installing it`,
    );
    expect(readdirSync(join(modelsDir, JOE)).sort()).to.deep.equal(['.installed.json', 'en_US-joe-medium.onnx', 'en_US-joe-medium.onnx.json']);
    expect((await loadManifest(manifestPath, modelsDir)).localIds).to.equal(undefined);
  });

  it('names a few voices and how to list them all when none is chosen, and --list-voices lists every one', async () => {
    const at = hub.requests.length;
    const result = await run(['hf:rhasspy/piper-voices@v1.0.0']);
    expect(result.code).to.equal(1);
    expect(result.errors).to.deep.equal([
      'error: rhasspy/piper-voices has 14 Piper voices; choose one with --voice <name> or hf:rhasspy/piper-voices@v1.0.0:<name>: ' +
        'ar_JO-kareem-low, ca_ES-upc_ona-x_low, cs_CZ-jirka-medium, da_DK-talesyntese-medium, de_DE-thorsten-high, en_US-joe-medium, ' +
        'es_ES-davefx-medium, fi_FI-harri-low, fr_FR-siwis-low, it_IT-riccardo-x_low, … and 4 more ' +
        '(all of them: npm run download-models -- hf:rhasspy/piper-voices@v1.0.0 --list-voices)',
    ]);
    expect(fetchedOnnx(at)).to.deep.equal([]);
    expect(existsSync(modelsDir) ? readdirSync(modelsDir).filter((name) => !name.startsWith('.')) : []).to.deep.equal([]);

    const listed = await run(['hf:rhasspy/piper-voices', '--list-voices']);
    expect(listed.code, listed.stderr).to.equal(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines).to.have.length(14);
    expect(lines).to.include(`en_US-joe-medium\t${JOE_DIR}/en_US-joe-medium.onnx`);

    const unknown = await run(['hf:rhasspy/piper-voices:en_GB-nobody-low']);
    expect(unknown.errors).to.have.length(1);
    expect(unknown.errors[0]).to.match(/^error: rhasspy\/piper-voices has no Piper voice "en_GB-nobody-low"; it has 14: ar_JO-kareem-low, /);
  });

  it('takes a voice named without its accents, and installs a single-voice repo without --voice', async () => {
    const accented = await run(['hf:rhasspy/piper-voices:pt_PT-tugao-medium']);
    expect(accented.code, accented.stderr).to.equal(0);
    expect(existsSync(join(modelsDir, 'piper-pt_PT-tugao-medium', 'pt_PT-tugão-medium.onnx'))).to.equal(true);

    const single = await run(['hf:test-org/piper-random-voice']);
    expect(single.code, single.stderr).to.equal(0);
    const entry = JSON.parse(readFileSync(join(modelsDir, 'piper-random-voice', '.manifest-entry.json'), 'utf8')) as ManifestEntry;
    expect(entry).to.deep.include({ task: 'text-to-speech', engine: 'piper' });
    expect(entry.source?.files.map((file) => file.path)).to.deep.equal(['piper-random.onnx', 'piper-random.onnx.json']);
    const manifest = await loadManifest(manifestPath, modelsDir);
    expect(manifest.localIds).to.have.members(['piper-pt_PT-tugao-medium', 'piper-random-voice']);
  });

  it('refuses a voice the engine cannot speak before its weights are fetched, weights without a SHA-256, and --voice on a repo of none', async () => {
    const at = hub.requests.length;
    const text = await run(['hf:test-org/text-phonemes']);
    expect(text.errors).to.deep.equal(['error: test-org/text-phonemes: v/text.onnx.json: phoneme_type "text" is not supported (only espeak)']);
    expect(fetchedOnnx(at)).to.deep.equal([]);

    const inGit = await run(['hf:test-org/voice-in-git']);
    expect(inGit.errors).to.deep.equal([
      'error: test-org/voice-in-git: the hub publishes no SHA-256 (LFS) for voice.onnx; refusing weights that cannot be verified',
    ]);
    for (const option of [['--voice', 'en_US-joe-medium'], ['--list-voices']]) {
      const notPiper = await run(['hf:onnx-community/whisper-tiny.en', ...option]);
      expect(notPiper.errors).to.deep.equal(['error: onnx-community/whisper-tiny.en has no Piper voice (a <name>.onnx beside its <name>.onnx.json)']);
    }
    const both = await run(['hf:rhasspy/piper-voices:en_US-joe-medium', '--voice', 'de_DE-thorsten-high']);
    expect(both.errors).to.deep.equal([
      'error: hf:rhasspy/piper-voices:en_US-joe-medium names the voice en_US-joe-medium, --voice de_DE-thorsten-high: name one',
    ]);
    expect(existsSync(modelsDir) ? readdirSync(modelsDir).filter((name) => !name.startsWith('.')) : []).to.deep.equal([]);
  });

  it('installs hf:onnx-community/whisper-tiny.en beside the shipped whisper-tiny.en under a free id, again into it, and numbers the id when that is taken too', async () => {
    const first = await run(['hf:onnx-community/whisper-tiny.en']);
    expect(first.code, first.stderr).to.equal(0);
    expect(first.stderr).to.include(
      'onnx-community-whisper-tiny.en: model id "whisper-tiny.en" is taken by a model of the shipped manifest; installing hf:onnx-community/whisper-tiny.en as "onnx-community-whisper-tiny.en" (--id picks another)',
    );
    const again = await run(['hf:onnx-community/whisper-tiny.en']);
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stderr).to.match(/onnx-community-whisper-tiny\.en: already installed/);

    // The owner-prefixed id taken too (here by the same repo under --id): a number follows.
    expect((await run(['hf:onnx-community/whisper-tiny.en', '--id', 'other-org-whisper-tiny.en'])).code).to.equal(0);
    const numbered = await run(['hf:other-org/whisper-tiny.en']);
    expect(numbered.code, numbered.stderr).to.equal(0);
    expect(numbered.stderr).to.include('installing hf:other-org/whisper-tiny.en as "other-org-whisper-tiny.en-2"');

    const manifest = await loadManifest(manifestPath, modelsDir);
    expect(manifest.localIds).to.have.members(['onnx-community-whisper-tiny.en', 'other-org-whisper-tiny.en', 'other-org-whisper-tiny.en-2']);
    // An id the user names is theirs: taken is refused, as before.
    const explicit = await run(['hf:onnx-community/whisper-tiny.en', '--id', 'whisper-tiny.en']);
    expect(explicit.errors).to.deep.equal([
      'error: hf:onnx-community/whisper-tiny.en: model id "whisper-tiny.en" is already taken by a model of the shipped manifest; pass --id <another id>',
    ]);
    const taken = await run(['hf:other-org/whisper-tiny.en', '--id', 'onnx-community-whisper-tiny.en']);
    expect(taken.errors).to.deep.equal([
      'error: hf:other-org/whisper-tiny.en: model id "onnx-community-whisper-tiny.en" is already taken by hf:onnx-community/whisper-tiny.en; pass --id <another id>',
    ]);
  });
});
