/**
 * The real server process with a tiny real model (test/fixtures/models): PRELOAD_MODELS holds
 * /readyz at 503 until the model is loaded, MODEL_IDLE_TTL unloads it on the real timer, and an
 * unknown preload name stops the server at start-up.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import { runServerToExit, spawnServer, type SpawnedServer } from './spawn-server.js';
import { FIXTURE_MODELS } from '../helpers/fixture-models.js';

const KEY = 'preload-test-key-0123456789';
const MANIFEST = {
  models: [FIXTURE_MODELS.sentiment],
  aliases: { sentiment: { task: 'text-classification', prefer: ['bert-sentiment-random'] } },
};

describe('server process: model preload and idle unload', function () {
  this.timeout(60_000);
  let dir: string;
  let env: Record<string, string>;
  let server: SpawnedServer | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lis-test-'));
    writeFileSync(join(dir, 'models.json'), JSON.stringify(MANIFEST));
    env = {
      DATABASE_URL: `sqlite:${join(dir, 'app.db')}`,
      MODELS_DIR: resolve('test/fixtures/models'),
      MODELS_MANIFEST: join(dir, 'models.json'),
      API_KEYS: KEY,
    };
  });
  afterEach(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    server = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  const get = (path: string) => fetch(`${server!.url}${path}`, { headers: { Authorization: `Bearer ${KEY}` } });
  const modelState = async () => (await (await get('/v1/models/bert-sentiment-random')).json()) as { state: string; memory_bytes: number | null };
  async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
    for (let i = 0; i < 150; i++) {
      if (await condition()) return;
      await new Promise((done) => setTimeout(done, 100));
    }
    throw new Error(`timed out waiting for ${what}:\n${server?.stderr()}`);
  }

  it('is ready once PRELOAD_MODELS are loaded, and unloads them after MODEL_IDLE_TTL', async () => {
    server = await spawnServer({ ...env, PRELOAD_MODELS: 'sentiment', MODEL_IDLE_TTL: '1' });
    await until(async () => (await fetch(`${server!.url}/readyz`)).status === 200, '/readyz 200');
    // Loaded by the preload (the idle time-out of 1 s may already have unloaded it again); the log
    // line is written after /readyz turns 200 and reaches the pipe in its own time.
    await until(async () => server!.stderr().includes('"message":"models preloaded"'), 'the "models preloaded" log line');
    await until(async () => (await modelState()).state === 'unloaded', 'the idle unload');
    // Counted once its worker has ended, a moment after it stops being listed as loaded.
    let metrics = '';
    await until(
      async () => (metrics = await (await get('/metrics')).text()).includes('model_unloads_total{model="bert-sentiment-random",reason="idle"} 1'),
      'the unload metric',
    );
    expect(metrics).to.include('model_loads_total{model="bert-sentiment-random",outcome="loaded"} 1');
    // One log line each way, with the seconds and the memory counted.
    const lines = server
      .stderr()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const loaded = lines.find((line) => line.message === 'model loaded');
    expect(loaded).to.include({ model: 'bert-sentiment-random', task: 'text-classification' });
    expect(loaded?.seconds).to.be.a('number');
    expect(loaded?.memoryMB).to.be.a('number');
    await until(async () => server!.stderr().includes('"message":"model unloaded"'), 'the unload log line');
    expect(server.stderr()).to.match(/"message":"model unloaded","model":"bert-sentiment-random","task":"text-classification","reason":"idle","memoryMB":\d+/);
  });

  it('loads by the admin API and reports the measured memory', async () => {
    server = await spawnServer(env);
    const loaded = await fetch(`${server.url}/v1/models/sentiment/load`, { method: 'POST', headers: { Authorization: `Bearer ${KEY}` } });
    expect(loaded.status).to.equal(200);
    const info = await modelState();
    expect(info.state).to.equal('loaded');
    expect(info.memory_bytes).to.be.a('number');
  });

  it('stops at start-up when TEI_MODEL names no embedding or classification model', async () => {
    const { code, stderr } = await runServerToExit({ ...env, TEI_MODEL: 'nope' });
    expect(code).to.equal(1);
    expect(stderr).to.equal('Configuration error: TEI_MODEL: "nope" is no embedding or classification model or alias of the manifest\n');
  });

  it('stops at start-up when PRELOAD_MODELS names no model of the manifest', async () => {
    const { code, stderr } = await runServerToExit({ ...env, PRELOAD_MODELS: 'sentiment,nope' });
    expect(code).to.equal(1);
    expect(stderr).to.equal('Configuration error: PRELOAD_MODELS: "nope" is no model or alias of the manifest\n');
  });
});
