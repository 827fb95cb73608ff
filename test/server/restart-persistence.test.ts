import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { spawnServer } from './spawn-server.js';

describe('server: acknowledged writes survive kill -9', function () {
  this.timeout(60_000);
  let dir: string;
  let env: Record<string, string>;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'lis-test-'));
    env = { DATABASE_URL: `sqlite:${join(dir, 'app.db')}`, MODELS_DIR: join(dir, 'models') };
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps every write answered 201/200/204 after the process is killed with SIGKILL', async () => {
    const first = await spawnServer(env);
    const send = (method: string, path: string, body?: object) =>
      fetch(first.url + path, {
        method,
        headers: body ? { 'Content-Type': 'application/json' } : {},
        body: body ? JSON.stringify(body) : undefined,
      });
    try {
      const ann = await (await send('POST', '/users', { name: 'Ann', email: 'ann@example.org' })).json();
      const bob = await (await send('POST', '/users', { name: 'Bob', email: 'bob@example.org' })).json();
      expect((await send('PUT', `/users/${ann.id}`, { name: 'Annie', email: 'annie@example.org' })).status).to.equal(200);
      expect((await send('DELETE', `/users/${bob.id}`)).status).to.equal(204);
      const last = await send('POST', '/users', { name: 'Cy', email: 'cy@example.org' });
      expect(last.status).to.equal(201);
      // No pause and no graceful close: the very next thing the process sees is SIGKILL.
      first.child.kill('SIGKILL');
    } finally {
      first.child.kill('SIGKILL');
    }
    expect(await first.exited).to.equal('SIGKILL');

    const second = await spawnServer(env);
    try {
      const users = await (await fetch(`${second.url}/users`)).json();
      expect(users.map((u: { name: string; email: string }) => [u.name, u.email])).to.deep.equal([
        ['Annie', 'annie@example.org'],
        ['Cy', 'cy@example.org'],
      ]);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });
});
