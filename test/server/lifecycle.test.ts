import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { runServerToExit, spawnServer } from './spawn-server.js';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('server process', () => {
  let dir: string;
  let env: Record<string, string>;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lis-test-'));
    env = { DATABASE_URL: `sqlite:${join(dir, 'app.db')}`, MODELS_DIR: join(dir, 'models') };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('on SIGTERM lets an in-flight request finish, refuses new ones, then exits 0', async () => {
    const server = await spawnServer(env);
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
      await delay(300);
      server.child.kill('SIGTERM');
      await delay(300);
      expect(server.child.exitCode).to.equal(null);
      const refused = await fetch(`${server.url}/`).then(
        () => 'answered',
        () => 'refused',
      );
      expect(refused).to.equal('refused');

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
    const server = await spawnServer(env);
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
});
