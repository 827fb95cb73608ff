/**
 * The real server process reads user-installed entries (<MODELS_DIR>/<id>/.manifest-entry.json,
 * written by download-models hf:) at start; one it cannot use (a clash with the manifest, a
 * truncated file) disables that model with one logged line, and the server serves the others.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { spawnServer, type SpawnedServer } from './spawn-server.js';

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
    writeFileSync(join(dir, 'models', folder, '.manifest-entry.json'), typeof value === 'string' ? value : JSON.stringify(value));
  };
  const modelIds = async (url: string) => {
    const res = await fetch(`${url}/v1/models`, { headers: { Authorization: `Bearer ${KEY}` } });
    return ((await res.json()) as { data: Array<{ id: string }> }).data.map((model) => model.id);
  };
  const skippedLines = (stderr: string) => stderr.split('\n').filter((line) => line.includes('"model entry skipped"'));

  it('lists an installed entry in GET /v1/models beside the shipped ones', async () => {
    place('mine', entry('mine'));
    server = await spawnServer(env);
    const res = await fetch(`${server.url}/v1/models`, { headers: { Authorization: `Bearer ${KEY}` } });
    const ids = ((await res.json()) as { data: Array<{ id: string }> }).data.map((model) => model.id);
    expect(ids).to.include.members(['shipped', 'mine']);
  });

  it('starts without the entries it cannot use, one logged line each, and serves the others', async () => {
    place('shipped', entry('shipped')); // takes an id of the manifest
    const whole = JSON.stringify(entry('cut'));
    place('cut', whole.slice(0, Math.floor(whole.length / 2))); // truncated
    place('odd', { ...entry('odd'), options: { noSuchOption: 1 } }); // options the engine refuses
    place('mine', entry('mine'));
    server = await spawnServer(env);
    const ids = await modelIds(server.url);
    expect(ids).to.include.members(['shipped', 'mine']);
    expect(ids).not.to.include.members(['cut']);
    expect(ids).not.to.include('odd');
    const lines = skippedLines(server.stderr());
    expect(lines).to.have.length(3);
    expect(lines[0])
      .to.match(/cut\/\.manifest-entry\.json/)
      .and.match(/is not valid JSON/);
    expect(lines[1])
      .to.match(/odd\/\.manifest-entry\.json/)
      .and.match(/noSuchOption/);
    expect(lines[2])
      .to.match(/shipped\/\.manifest-entry\.json/)
      .and.match(/id \\"shipped\\" is also in .*models\.json; remove or rename that folder/);
  });
});
