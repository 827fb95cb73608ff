/**
 * A batch survives `kill -9`: the server (its own process, SQLite, the real MiniLM) is killed
 * mid-batch and started again on the same database and files; the batch completes with every
 * custom_id exactly once and every vector equal to the synchronous route's.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';
import { spawnServer, type SpawnedServer } from '../server/spawn-server.js';
import { BATCH_TEST_KEY as KEY, batchClient, embeddingLines, expectEveryLineOnce } from '../helpers/batch-client.js';

const LINES = 400;
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a batch survives kill -9 (SQLite, real MiniLM)', function () {
  this.timeout(300_000);
  let dir: string;
  let server: SpawnedServer | undefined;
  before(function () {
    if (!existsSync(join(REPO_ROOT, 'models', 'all-MiniLM-L6-v2', '.installed.json'))) this.skip();
  });
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'lis-batch-'))));
  afterEach(async () => {
    server?.child.kill('SIGKILL');
    if (server) await server.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  it('resumes after kill -9 with every line exactly once', async () => {
    const env = {
      DATABASE_URL: `sqlite:${join(dir, 'app.db')}`,
      FILES_DIR: join(dir, 'files'),
      MODELS_DIR: join(REPO_ROOT, 'models'),
      MODELS_MANIFEST: join(REPO_ROOT, 'models', 'models.json'),
      API_KEYS: KEY,
    };
    server = await spawnServer(env);
    let client = batchClient(server.url);
    const lines = embeddingLines(LINES);
    const id = await client.create(await client.upload(lines.map((line) => JSON.stringify(line)).join('\n')));
    let before: any;
    do {
      await delay(20);
      before = await client.batch(id);
    } while (before.request_counts.completed < LINES / 4);
    server.child.kill('SIGKILL');
    await server.exited;
    expect(before.request_counts.completed, 'killed mid-batch').to.be.below(LINES);

    server = await spawnServer(env);
    client = batchClient(server.url);
    let after: any;
    do {
      await delay(100);
      after = await client.batch(id);
    } while (!['completed', 'failed', 'cancelled', 'expired'].includes(after.status));
    expect(server.stderr()).to.contain('batch lines resumed');
    await expectEveryLineOnce(client, after, lines);
  });
});
