/**
 * The helper that starts the real server for the process-level tests gives up on a server that
 * never listens, and only then: a server that listened keeps running past that time-out (it used
 * to be SIGKILLed by the helper's own timer, which cut long suites such as the docs examples).
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer } from './spawn-server.js';

describe('spawnServer', function () {
  this.timeout(30_000);

  it('leaves a server that listened running after the listen time-out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lis-spawn-'));
    const listenTimeoutMs = 8_000;
    const started = Date.now();
    const server = await spawnServer({ DATABASE_URL: `sqlite:${join(dir, 'app.db')}` }, { listenTimeoutMs });
    try {
      await new Promise((resolve) => setTimeout(resolve, listenTimeoutMs - (Date.now() - started) + 1_000));
      expect(server.child.signalCode, 'killed').to.equal(null);
      expect((await fetch(`${server.url}/healthz`)).status).to.equal(200);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
