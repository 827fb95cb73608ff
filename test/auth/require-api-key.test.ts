import { expect } from 'chai';
import supertest from 'supertest';
import { createKeyStore } from '../../src/auth/key-store.js';
import { createApp } from '../../src/http/create-app.js';
import { createLogger } from '../../src/logger.js';
import { registeredRoutes } from '../helpers/registered-routes.js';
import { bearer, createTestApp, TEST_API_KEY, type TestApp } from '../helpers/test-app.js';

describe('API keys on /v1', () => {
  let app: TestApp;
  let stored: string;

  before(async () => {
    app = await createTestApp();
    // The same store the key CLI uses, writing to the database the app reads.
    stored = (await createKeyStore(app.db, { staticKeys: [] }).create('test')).key;
  });
  after(() => app.close());

  function expectUnauthorized(res: { status: number; headers: Record<string, string>; body: any }) {
    expect(res.status).to.equal(401);
    expect(res.headers['www-authenticate']).to.match(/^Bearer\b/);
    expect(res.headers['content-type']).to.match(/^application\/json/);
    expect(res.body.error).to.include({ type: 'authentication_error', code: 'unauthorized' });
    expect(res.body.error.message).to.be.a('string').and.not.equal('');
  }

  it('accepts a static key from API_KEYS', async () => {
    const res = await app.request.get('/v1/models').set('Authorization', bearer(TEST_API_KEY));
    expect(res.status).to.equal(200);
  });

  it('accepts a stored key and records its use', async () => {
    const res = await app.request.get('/v1/models').set('Authorization', bearer(stored));
    expect(res.status).to.equal(200);
    const row = await app.db.selectFrom('api_keys').select('last_used_at').executeTakeFirstOrThrow();
    expect(row.last_used_at).to.be.a('string');
  });

  it('accepts the scheme name in any case', async () => {
    const res = await app.request.get('/v1/models').set('Authorization', `bearer ${stored}`);
    expect(res.status).to.equal(200);
  });

  it('answers 401 without an Authorization header', async () => {
    const res = await app.request.get('/v1/models');
    expectUnauthorized(res);
    expect(res.headers['www-authenticate']).to.not.match(/error=/);
  });

  it('answers 401 for another scheme or an empty token', async () => {
    for (const header of [`Basic ${Buffer.from(`u:${stored}`).toString('base64')}`, 'Bearer', 'Bearer ', stored, `Bearer ${stored} extra`]) {
      const res = await app.request.get('/v1/models').set('Authorization', header);
      expectUnauthorized(res);
    }
  });

  it('answers 401 for an unknown key', async () => {
    const res = await app.request.get('/v1/models').set('Authorization', bearer('lis_thisKeyWasNeverIssued000000000000000000000'));
    expectUnauthorized(res);
    expect(res.headers['www-authenticate']).to.match(/error="invalid_token"/);
  });

  it('answers 401 for a revoked key, on the very next request', async () => {
    const { key, info } = await createKeyStore(app.db, { staticKeys: [] }).create('short-lived');
    expect((await app.request.get('/v1/models').set('Authorization', bearer(key))).status).to.equal(200);
    await createKeyStore(app.db, { staticKeys: [] }).revoke(String(info.id));
    expectUnauthorized(await app.request.get('/v1/models').set('Authorization', bearer(key)));
  });

  it('checks the key before anything else, on every registered /v1 route', async () => {
    const koa = createApp({ db: app.db, models: app.models, config: app.config, logger: createLogger('silent') });
    const v1 = registeredRoutes(koa).filter((route) => route.path.startsWith('/v1/'));
    expect(v1.length).to.be.greaterThan(5);
    const request = supertest(koa.callback());
    for (const { method, path } of v1) {
      const url = path.replace(/\{\w+\}/g, 'x');
      const res = await request[method.toLowerCase() as 'get' | 'post'](url).set('Content-Type', 'text/plain').send('x');
      expect(res.status, `${method} ${path}`).to.equal(401);
    }
  });

  it('leaves area A open', async () => {
    expect((await app.request.get('/users')).status).to.equal(200);
    expect((await app.request.get('/')).status).to.equal(200);
  });
});
