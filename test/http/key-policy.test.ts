import { expect } from 'chai';
import { Redis } from 'ioredis';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKeyStore } from '../../src/auth/key-store.js';
import { INSTALL_MARKER, type Engine } from '../../src/inference/engine.js';
import type { Manifest } from '../../src/inference/manifest.js';
import { createTestApp, type TestApp, type TestAppOptions } from '../helpers/test-app.js';

const engine: Engine<'text-classification'> = {
  tasks: ['text-classification'],
  load: async () => ({ classify: async () => [{ label: 'POSITIVE', confidence: 1 }], dispose: async () => {} }),
};
const MANIFEST: Manifest = {
  models: ['allowed', 'other'].map((id) => ({
    id,
    task: 'text-classification' as const,
    engine: 'scripted',
    description: id,
    license: 'mit',
    installCommand: 'none',
  })),
  aliases: { 'gpt-class': { task: 'text-classification', prefer: ['allowed'] } },
};

/** An app on MANIFEST with both models installed. */
async function withInstalledModels(options: TestAppOptions = {}): Promise<TestApp> {
  const modelsDir = mkdtempSync(join(tmpdir(), 'lis-models-'));
  for (const id of ['allowed', 'other']) {
    mkdirSync(join(modelsDir, id));
    writeFileSync(join(modelsDir, id, INSTALL_MARKER), '{}');
  }
  return createTestApp({ manifest: MANIFEST, modelsDir, engines: { scripted: engine }, ...options });
}

describe('per-key policy: rate limit, model list, expiry, usage', () => {
  let app: TestApp;
  beforeEach(async () => {
    app = await withInstalledModels();
  });
  afterEach(() => app.close());
  const keys = () => createKeyStore(app.db, { staticKeys: [] });
  const classify = (key: string, model: string, query = 'Great!') =>
    app.request.post('/v1/classifications').set('Authorization', `Bearer ${key}`).send({ model, query });

  it('answers 429 rate_limited with Retry-After past the requests per minute', async () => {
    const { key } = await keys().create('bot', { rpm: 3 });
    for (let i = 0; i < 3; i++) expect((await app.request.get('/v1/models').set('Authorization', `Bearer ${key}`)).status).to.equal(200);
    const limited = await app.request.get('/v1/models').set('Authorization', `Bearer ${key}`);
    expect(limited.status).to.equal(429);
    expect(limited.body.error.code).to.equal('rate_limited');
    expect(Number(limited.headers['retry-after'])).to.be.within(1, 60);
  });

  it('answers 403 model_not_allowed outside the key model list, by id or alias', async () => {
    const { key } = await keys().create('one-model', { models: ['allowed'] });
    expect((await classify(key, 'allowed')).status).to.equal(200);
    expect((await classify(key, 'gpt-class')).status, 'alias of an allowed model').to.equal(200);
    const refused = await classify(key, 'other');
    expect(refused.status).to.equal(403);
    expect(refused.body.error).to.deep.include({ code: 'model_not_allowed', message: 'This API key may not use model "other"; it may use: allowed' });
  });

  it('refuses an expired key with 401', async () => {
    const { key } = await keys().create('short', { expiresAt: new Date(Date.now() + 50) });
    await new Promise((resolve) => setTimeout(resolve, 80));
    const res = await app.request.get('/v1/models').set('Authorization', `Bearer ${key}`);
    expect(res.status).to.equal(401);
    expect(res.body.error.message).to.equal('Invalid, expired or revoked API key');
  });

  it('records requests and characters per key', async () => {
    const { key, info } = await keys().create('counted');
    await classify(key, 'allowed', 'abcde');
    await classify(key, 'allowed', 'fgh');
    await app.app.dispose();
    const row = (await keys().list()).find((listed) => listed.id === info.id)!;
    expect(row).to.deep.include({ requests: 2, characters: 8 });
  });

  it('serves /metrics to admin keys only', async () => {
    const plain = await keys().create('plain');
    const admin = await keys().create('ops', { admin: true });
    expect((await app.request.get('/metrics').set('Authorization', `Bearer ${plain.key}`)).status).to.equal(403);
    expect((await app.request.get('/metrics').set('Authorization', `Bearer ${admin.key}`)).status).to.equal(200);
  });
});

describe('per-key rate limit shared by replicas through Redis', () => {
  const url = process.env.TEST_REDIS_URL;
  let replicas: TestApp[] = [];
  let redis: Redis[] = [];
  before(function () {
    // `.ci/run` sets it to the Redis server on loopback.
    if (!url) this.skip();
  });
  after(async () => {
    // The second replica shares the first one's database file: only the first removes it.
    await replicas[1]?.close({ keepFiles: true });
    await replicas[0]?.close();
    for (const client of redis) client.disconnect();
  });

  it('counts one limit across two apps on one database', async () => {
    redis = [new Redis(url!), new Redis(url!)];
    const first = await withInstalledModels({ redis: redis[0] });
    const second = await withInstalledModels({ databasePath: first.databasePath, redis: redis[1] });
    replicas = [first, second];
    const { key } = await createKeyStore(first.db, { staticKeys: [] }).create(`shared-${Date.now()}`, { rpm: 4 });
    const statuses = [];
    for (let i = 0; i < 6; i++) {
      const replica = replicas[i % 2]!;
      statuses.push((await replica.request.get('/v1/models').set('Authorization', `Bearer ${key}`)).status);
    }
    expect(statuses).to.deep.equal([200, 200, 200, 200, 429, 429]);
  });
});
