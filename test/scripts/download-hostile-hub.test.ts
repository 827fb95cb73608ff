/**
 * `download-models` against a hostile mirror on 127.0.0.1 (HF_ENDPOINT), with the manifest and
 * its catalogue inside MODELS_DIR as a clone lays them out (models/models.json, models/catalog/):
 * ids that would replace them, a body past its declared size, a trickle, JSON of the wrong types
 * or trickled past its deadline, terminal escapes in hub strings. Every failure must be one
 * `error:` line and a non-zero exit, and leave the installation as it was.
 */
import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runDownloadModels } from '../../src/inference/install/download-models-command.js';
import type { ManifestEntry } from '../../src/inference/manifest.js';
import { mirrorCommit, startHubMirror, type FakeHub, type HubOverride, type MirrorRepo } from '../helpers/fake-hub.js';

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const WEIGHTS = randomBytes(4096);
const COMMIT = 'a'.repeat(40);

/** A BERT classifier repo as `hf:` reads it; `config` replaces its config.json. */
function classifierRepo(
  config: unknown = { architectures: ['BertForSequenceClassification'], model_type: 'bert', id2label: { 0: 'no', 1: 'yes' } },
): MirrorRepo {
  return {
    files: {
      'config.json': Buffer.from(JSON.stringify(config)),
      'tokenizer.json': Buffer.from('{}'),
      'tokenizer_config.json': Buffer.from('{}'),
      'onnx/model_quantized.onnx': WEIGHTS,
    },
  };
}

/** A catalogue entry of the shipped kind: a commit, each file's sha256 and size pinned. */
const pinned: ManifestEntry = {
  id: 'tiny',
  task: 'text-classification',
  engine: 'transformers-text-classification',
  description: 'test',
  license: 'mit',
  source: { type: 'huggingface', repo: 'org/tiny', revision: COMMIT, files: [{ path: 'onnx/model.onnx', sha256: sha(WEIGHTS), size: WEIGHTS.length }] },
};
const WEIGHT_URL = `/org/tiny/resolve/${COMMIT}/onnx/model.onnx`;

describe('download-models against a hostile mirror', () => {
  let hub: FakeHub | undefined;
  let dir: string;
  let catalogBefore: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lis-hostile-'));
    mkdirSync(join(dir, 'catalog'));
    writeFileSync(
      join(dir, 'models.json'),
      JSON.stringify({
        models: [pinned],
        aliases: { 'whisper-1': { task: 'text-classification', prefer: ['tiny'] } },
        starter: { 'text-classification': 'tiny' },
      }),
    );
    writeFileSync(join(dir, 'catalog', 'more.json'), JSON.stringify({ models: [{ ...pinned, id: 'more', source: { ...pinned.source, repo: 'org/more' } }] }));
    catalogBefore = snapshot();
  });
  afterEach(async () => {
    await hub?.close();
    hub = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  /** The manifest and catalogue files, to prove a run left them as they were. */
  function snapshot(): string {
    return JSON.stringify([
      readFileSync(join(dir, 'models.json'), 'utf8'),
      readdirSync(join(dir, 'catalog')),
      readFileSync(join(dir, 'catalog', 'more.json'), 'utf8'),
    ]);
  }

  async function start(repos: Record<string, MirrorRepo>, override?: HubOverride): Promise<FakeHub> {
    hub = await startHubMirror(repos, {}, override);
    return hub;
  }

  async function run(args: string[], env: Record<string, string> = {}) {
    let stderr = '';
    const started = Date.now();
    const code = await runDownloadModels(args, {
      // MODELS_DIR is the manifest's own folder, as in a clone (models/).
      env: { MODELS_DIR: dir, MODELS_MANIFEST: join(dir, 'models.json'), HF_ENDPOINT: hub?.url ?? 'http://127.0.0.1:9', ...env },
      stdout: { write: () => true },
      stderr: { isTTY: false, write: (chunk: string) => (stderr += chunk) },
      hub: { connectTimeoutMs: 2000, idleTimeoutMs: 2000 },
    });
    const errors = stderr.split('\n').filter((line) => line.startsWith('error:'));
    return { code, stderr, errors, ms: Date.now() - started };
  }

  /** One `error:` line, no stack frame, a non-zero exit. */
  function expectOneErrorLine(result: Awaited<ReturnType<typeof run>>, pattern: RegExp): void {
    expect(result.code, result.stderr).to.not.equal(0);
    expect(result.errors, result.stderr).to.have.length(1);
    expect(result.errors[0]).to.match(pattern);
    expect(result.stderr).to.not.match(/\n\s+at /);
  }

  describe('ids that are not model folders', () => {
    for (const [args, pattern] of [
      [['hf:anyone/catalog'], /cannot install into .*catalog: "catalog" is a file or folder of the models folder itself/],
      [['hf:anyone/x', '--id', 'Catalog'], /"Catalog" is a file or folder of the models folder itself/],
      [['hf:anyone/x', '--id', 'models.json'], /"models\.json" is a file or folder of the models folder itself/],
      [['hf:anyone/x', '--id', 'README.md'], /"README\.md" is a file or folder/],
      [['hf:anyone/x', '--id', 'whisper-1'], /model id "whisper-1" is an alias of the manifest/],
      [['hf:anyone/x', '--id', 'TINY'], /model id "TINY" is already taken by a model of the shipped manifest/],
      [['hf:anyone/x', '--id', '.partial'], /is not a valid model id/],
      [['hf:anyone/x', '--id', 'a/b'], /is not a valid model id/],
    ] as const) {
      it(`refuses ${args.join(' ')} before asking the hub anything, leaving the manifest and catalogue as they were`, async () => {
        const mirror = await start({ 'anyone/catalog': classifierRepo(), 'anyone/x': classifierRepo() });
        const result = await run([...args]);
        expectOneErrorLine(result, pattern);
        expect(mirror.requests, 'nothing asked of the hub').to.deep.equal([]);
        expect(snapshot()).to.equal(catalogBefore);
        expect(readdirSync(dir).sort()).to.deep.equal(['catalog', 'models.json']);
      });
    }

    it('refuses to replace a folder that is not a model install, unless --force', async () => {
      mkdirSync(join(dir, 'notes'));
      writeFileSync(join(dir, 'notes', 'mine.txt'), 'keep me');
      await start({ 'anyone/notes': classifierRepo() });
      expectOneErrorLine(await run(['hf:anyone/notes']), /notes exists and is not a model install \(no \.installed\.json\); move it away, or pass --force/);
      expect(readFileSync(join(dir, 'notes', 'mine.txt'), 'utf8')).to.equal('keep me');
      writeFileSync(join(dir, 'afile'), 'x');
      expectOneErrorLine(await run(['hf:anyone/x', '--id', 'afile']), /afile exists and is not a folder/);
      const forced = await run(['hf:anyone/notes', '--force']);
      expect(forced.code, forced.stderr).to.equal(0);
      expect(existsSync(join(dir, 'notes', '.installed.json'))).to.equal(true);
      expect(snapshot()).to.equal(catalogBefore);
    });

    it('installs an ordinary hf: id beside the manifest, which then still loads (--list exits 0)', async () => {
      await start({ 'anyone/good-model': classifierRepo() });
      const result = await run(['hf:anyone/good-model']);
      expect(result.code, result.stderr).to.equal(0);
      expect((await run(['--list'])).code).to.equal(0);
      expect(snapshot()).to.equal(catalogBefore);
    });
  });

  describe('a weight file', () => {
    it('whose body runs past its declared size is cut at the first byte too many', async () => {
      let sent = 0;
      let closed = false;
      await start({}, (path, _req, res) => {
        if (path !== WEIGHT_URL) return false;
        // No Content-Length: the body is chunked, and would go on for 200 MB.
        res.writeHead(200);
        const chunk = randomBytes(64 * 1024);
        res.on('close', () => (closed = true));
        const pump = () => {
          while (!closed && sent < 200e6) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        pump();
        return true;
      });
      const result = await run(['tiny']);
      expectOneErrorLine(result, /sent more than the 4096 bytes the file has; the transfer was stopped and nothing kept/);
      expect(sent, 'bytes the mirror could push before the client hung up').to.be.below(8e6);
      expect(existsSync(join(dir, 'tiny'))).to.equal(false);
      const staged = readdirSync(join(dir, '.partial'), { recursive: true }).map(String);
      expect(staged.filter((path) => path.includes('model.onnx'))).to.deep.equal([]);
    });

    it('whose Content-Length announces more than its declared size is refused before its body is read', async () => {
      await start({}, (path, _req, res) => {
        if (path !== WEIGHT_URL) return false;
        res.writeHead(200, { 'content-length': String(240e6) });
        res.write(randomBytes(1024));
        return true;
      });
      expectOneErrorLine(await run(['tiny']), /announces 240000000 bytes, but the file is 4096 bytes; nothing was kept/);
    });

    it('whose size the tree overstates is refused by the free-space check before a byte is fetched', async () => {
      const loose: ManifestEntry = {
        ...pinned,
        id: 'loose',
        source: { type: 'huggingface', repo: 'org/loose', revision: COMMIT, files: [{ path: 'onnx/model.onnx' }] },
      };
      writeFileSync(join(dir, 'models.json'), JSON.stringify({ models: [pinned, loose] }));
      const mirror = await start({}, (path, _req, res) => {
        if (path !== `/api/models/org/loose/tree/${COMMIT}`) return false;
        const lfs = { oid: sha(WEIGHTS), size: 5e12, pointerSize: 134 };
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify([{ type: 'file', path: 'onnx/model.onnx', size: 134, oid: 'b'.repeat(40), lfs }]));
        return true;
      });
      expectOneErrorLine(await run(['loose']), /not enough disk space for loose in .*: needs 5000000\.0 MB, [\d.]+ MB free/);
      expect(mirror.requests.filter((request) => request.path.includes('/resolve/'))).to.deep.equal([]);
    });

    it('trickled a byte at a time fails at the minimum rate, not after an idle time-out each byte resets', async () => {
      const timers = new Set<NodeJS.Timeout>();
      await start({}, (path, _req, res: ServerResponse) => {
        if (path !== WEIGHT_URL) return false;
        res.writeHead(200, { 'content-length': String(WEIGHTS.length) });
        let at = 0;
        const timer = setInterval(() => res.write(WEIGHTS.subarray(at, ++at)), 10);
        timers.add(timer);
        res.on('close', () => clearInterval(timer));
        return true;
      });
      try {
        // 1,000 bytes/s over 0.1 s windows; the trickle brings 100 bytes/s. The idle timer (2 s) never fires.
        const result = await run(['tiny'], { DOWNLOAD_MIN_RATE: '1000', DOWNLOAD_RATE_WINDOW: '0.1' });
        expectOneErrorLine(result, /brought \d+ bytes in 0\.1s, under the minimum of 1000 bytes\/s \(DOWNLOAD_MIN_RATE\)/);
        expect(result.ms, 'four attempts of one window each').to.be.below(1500);
      } finally {
        for (const timer of timers) clearInterval(timer);
      }
    });
  });

  describe('hub JSON', () => {
    for (const [name, config, pattern] of [
      [
        'architectures of numbers',
        { architectures: [42], model_type: 'bert' },
        /config\.json is not what this installer reads: \/architectures\/0 must be string/,
      ],
      ['architectures of objects', { architectures: [{}], model_type: 'bert' }, /\/architectures\/0 must be string/],
      [
        'an id2label holding null',
        { architectures: ['BertForSequenceClassification'], model_type: 'bert', id2label: { 0: null } },
        /\/id2label\/0 must be string/,
      ],
      ['a model_type that is a number', { model_type: 7 }, /\/model_type must be string/],
      ['a list instead of an object', [], /the top level must be object/],
    ] as const) {
      it(`refuses a config.json with ${name} in one error line`, async () => {
        await start({ 'anyone/bad': classifierRepo(config) });
        expectOneErrorLine(await run(['hf:anyone/bad']), pattern);
        expect(existsSync(join(dir, 'bad'))).to.equal(false);
      });
    }

    it('refuses an API answer trickled past its deadline in one error line', async () => {
      const timers = new Set<NodeJS.Timeout>();
      await start({}, (path, _req, res) => {
        if (!path.startsWith('/api/models/anyone/slow/revision/')) return false;
        const body = Buffer.from(JSON.stringify({ id: 'anyone/slow', sha: mirrorCommit('anyone/slow'), padding: ' '.repeat(1000) }));
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
        let at = 0;
        const timer = setInterval(() => res.write(body.subarray(at, ++at)), 10);
        timers.add(timer);
        res.on('close', () => clearInterval(timer));
        return true;
      });
      try {
        const result = await run(['hf:anyone/slow'], { DOWNLOAD_API_TIMEOUT: '0.3' });
        expectOneErrorLine(result, /revision\/main: the answer did not complete \(timed out\)/);
        expect(result.ms).to.be.below(1500);
      } finally {
        for (const timer of timers) clearInterval(timer);
      }
    });

    it('strips terminal escapes and control characters from hub strings before printing them', async () => {
      const evil = '\u001b]0;owned\u0007\u001b[2J\u001b[31mEvilNet\u009b1m\u202e\u0008ForCausalLM';
      await start({ 'anyone/evil': classifierRepo({ architectures: [evil], model_type: 'llama' }) });
      const result = await run(['hf:anyone/evil']);
      expectOneErrorLine(result, /unsupported architecture EvilNetForCausalLM; supported:/);
      expect(result.stderr).to.not.match(/(?!\n)[\p{Cc}\p{Bidi_Control}]/u);
    });
  });

  it('starts an unknown option with error:, then the usage', async () => {
    const result = await run(['--bogus']);
    expect(result.code).to.equal(2);
    expect(result.errors).to.have.length(1);
    expect(result.errors[0]).to.match(/^error: Unknown option '--bogus'/);
  });

  it('refuses a transfer limit that is not a number, in one line', async () => {
    const result = await run(['tiny'], { DOWNLOAD_IDLE_TIMEOUT: 'soon' });
    expect(result.code).to.equal(2);
    expect(result.errors).to.deep.equal(['error: DOWNLOAD_IDLE_TIMEOUT must be a positive number of seconds, got "soon"']);
  });
});
