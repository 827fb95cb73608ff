import { request as httpRequest } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { sleep, until } from '../helpers/until.js';
import { runServerToExit, spawnServer } from './spawn-server.js';

describe('server process', function () {
  this.timeout(60_000);
  let dir: string;
  let env: Record<string, string>;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lis-test-'));
    env = { DATABASE_URL: `sqlite:${join(dir, 'app.db')}`, MODELS_DIR: join(dir, 'models') };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('on SIGTERM lets an in-flight request finish, refuses new ones, then exits 0', async () => {
    // One model whose files are not in MODELS_DIR (Debian's Apertium pairs of the real manifest may be installed).
    const manifest = {
      models: [{ id: 'whisper-tiny-random', task: 'speech-to-text', engine: 'transformers-asr', description: 'random Whisper', license: 'MIT' }],
    };
    writeFileSync(join(dir, 'models.json'), JSON.stringify(manifest));
    const server = await spawnServer({ ...env, MODELS_MANIFEST: join(dir, 'models.json') });
    try {
      const body = JSON.stringify({ name: 'Ann', email: 'ann@example.org' });
      const { port } = new URL(server.url);
      const req = httpRequest({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/users',
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
      });
      const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
        req.on('response', (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        });
        req.on('error', reject);
      });
      // Half the body now: the server is inside the request, waiting for the rest.
      req.write(body.slice(0, 10));
      await sleep(300);
      server.child.kill('SIGTERM');
      const refused = () =>
        fetch(`${server.url}/`).then(
          () => false,
          () => true,
        );
      await until(refused, 'new connections to be refused after SIGTERM', 5_000, 50);
      expect(server.child.exitCode).to.equal(null);

      req.end(body.slice(10));
      const res = await response;
      expect(res.status, res.text).to.equal(201);
      expect(JSON.parse(res.text)).to.include({ name: 'Ann' });
      // The client's kept-alive connection must not hold the process until its keep-alive timeout.
      const answered = Date.now();
      expect(await server.exited).to.equal(0);
      expect(Date.now() - answered).to.be.below(2_000);
      expect(server.stderr()).to.match(/"message":"stopped"/);
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('exits 0 promptly on SIGTERM when idle, even with a kept-alive connection open', async () => {
    // One model whose files are not in MODELS_DIR (Debian's Apertium pairs of the real manifest may be installed).
    const manifest = {
      models: [{ id: 'whisper-tiny-random', task: 'speech-to-text', engine: 'transformers-asr', description: 'random Whisper', license: 'MIT' }],
    };
    writeFileSync(join(dir, 'models.json'), JSON.stringify(manifest));
    const server = await spawnServer({ ...env, MODELS_MANIFEST: join(dir, 'models.json') });
    try {
      // fetch keeps the connection alive after the response.
      expect((await fetch(`${server.url}/`)).status).to.equal(200);
      const started = Date.now();
      server.child.kill('SIGTERM');
      expect(await server.exited).to.equal(0);
      expect(Date.now() - started).to.be.below(5_000);
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('exits 1 with a one-line message naming the variable for a bad PORT', async () => {
    const { code, stderr } = await runServerToExit({ ...env, PORT: 'eighty' });
    expect(code).to.equal(1);
    expect(stderr).to.equal('Configuration error: PORT must be an integer between 0 and 65535, got "eighty"\n');
  });

  it('exits 1 with a clear message for other bad settings', async () => {
    const { code, stderr } = await runServerToExit({ ...env, LOG_LEVEL: 'loud' });
    expect(code).to.equal(1);
    expect(stderr).to.match(/^Configuration error: LOG_LEVEL must be one of/);
  });

  it('exits 1 with one line naming the port when it is taken', async () => {
    const taken = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => taken.once('listening', resolve));
    try {
      const port = (taken.address() as AddressInfo).port;
      const { code, stderr } = await runServerToExit({ ...env, HOST: '127.0.0.1', PORT: String(port) });
      expect(code).to.equal(1);
      expect(stderr).to.equal(`Cannot start: 127.0.0.1:${port} is already in use (another server running?): stop it or set PORT to a free port\n`);
    } finally {
      taken.close();
    }
  });

  it('exits 1 with one line naming the database path when it cannot be written', async () => {
    // A path under a regular file: no directory can be made there, even as root.
    const path = join(dir, 'app.db', 'nested', 'app.db');
    writeFileSync(join(dir, 'app.db'), '');
    const { code, stderr } = await runServerToExit({ ...env, DATABASE_URL: `sqlite:${path}` });
    expect(code).to.equal(1);
    expect(stderr.split('\n').filter(Boolean)).to.have.length(1);
    expect(stderr).to.match(
      new RegExp(
        `^Cannot start: cannot open the database at ${path} \\(ENOTDIR: .*\\): make its directory writable or set DATABASE_URL=sqlite:<writable path>`,
      ),
    );
  });

  it('logs the installed models at start, and how to install one when there are none', async () => {
    // One model whose files are not in MODELS_DIR (Debian's Apertium pairs of the real manifest may be installed).
    const manifest = {
      models: [{ id: 'whisper-tiny-random', task: 'speech-to-text', engine: 'transformers-asr', description: 'random Whisper', license: 'MIT' }],
    };
    writeFileSync(join(dir, 'models.json'), JSON.stringify(manifest));
    const server = await spawnServer({ ...env, MODELS_MANIFEST: join(dir, 'models.json') });
    try {
      await until(() => /no model installed/.test(server.stderr()), 'the no-model warning', 10_000, 50);
      const line = JSON.parse(
        server
          .stderr()
          .split('\n')
          .find((l) => l.includes('no model installed'))!,
      ) as Record<string, unknown>;
      expect(line).to.include({ level: 'warn', install: 'npm run download-models -- --list' });
    } finally {
      server.child.kill('SIGKILL');
    }
  });
});
