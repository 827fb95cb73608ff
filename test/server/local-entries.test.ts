/**
 * The real server process reads user-installed entries (<MODELS_DIR>/<id>/.manifest-entry.json,
 * written by download-models hf:) at start, and stops on one that clashes with the manifest.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { runServerToExit, spawnServer, type SpawnedServer } from './spawn-server.js';

const KEY = 'local-entry-test-key-0123456789';
const entry = (id: string) => ({ id, task: 'embeddings', engine: 'sentence-embedding', description: 'user-installed', license: 'test' });

describe('server process: user-installed manifest entries', function () {
  this.timeout(60_000);
  let dir: string;
  let env: Record<string, string>;
  let server: SpawnedServer | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lis-test-'));
    writeFileSync(join(dir, 'models.json'), JSON.stringify({ models: [entry('shipped')] }));
    env = { DATABASE_URL: `sqlite:${join(dir, 'app.db')}`, MODELS_DIR: join(dir, 'models'), MODELS_MANIFEST: join(dir, 'models.json'), API_KEYS: KEY };
  });
  afterEach(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    server = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  const place = (folder: string, value: unknown) => {
    mkdirSync(join(dir, 'models', folder), { recursive: true });
    writeFileSync(join(dir, 'models', folder, '.manifest-entry.json'), JSON.stringify(value));
  };

  it('lists an installed entry in GET /v1/models beside the shipped ones', async () => {
    place('mine', entry('mine'));
    server = await spawnServer(env);
    const res = await fetch(`${server.url}/v1/models`, { headers: { Authorization: `Bearer ${KEY}` } });
    const ids = ((await res.json()) as { data: Array<{ id: string }> }).data.map((model) => model.id);
    expect(ids).to.include.members(['shipped', 'mine']);
  });

  it('stops at start-up when an installed entry takes an id of the manifest', async () => {
    place('shipped', entry('shipped'));
    const { code, stderr } = await runServerToExit(env);
    expect(code).to.equal(1);
    expect(stderr).to.match(/shipped\/\.manifest-entry\.json: id "shipped" is also in .*models\.json; remove or rename that folder/);
  });
});
