import { expect } from 'chai';
import { loadConfig } from '../../src/config/load-config.js';
import { bearer, createTestApp, type TestApp } from '../helpers/test-app.js';

const PAGE = 'http://localhost:5173';

describe('CORS', () => {
  let app: TestApp;
  afterEach(() => app?.close());

  it('is off by default: no CORS headers, preflights go to the routes', async () => {
    app = await createTestApp();
    const res = await app.request.get('/v1/models').set('Origin', PAGE).set('Authorization', bearer());
    expect(res.status).to.equal(200);
    expect(res.headers).not.to.have.property('access-control-allow-origin');
    const preflight = await app.request.options('/v1/models').set('Origin', PAGE).set('Access-Control-Request-Method', 'GET');
    expect(preflight.headers).not.to.have.property('access-control-allow-origin');
  });

  it('answers a preflight from an allowed origin before the key check', async () => {
    app = await createTestApp({ env: { CORS_ORIGINS: `${PAGE}, https://app.example.org` } });
    const preflight = await app.request
      .options('/v1/audio/transcriptions')
      .set('Origin', PAGE)
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'authorization, content-type');
    expect(preflight.status).to.equal(204);
    expect(preflight.headers['access-control-allow-origin']).to.equal(PAGE);
    expect(preflight.headers['access-control-allow-methods']).to.include('POST');
    expect(preflight.headers['access-control-allow-headers']).to.equal('authorization, content-type');
    expect(preflight.headers['access-control-max-age']).to.equal('7200');
  });

  it('lets an allowed page read answers and errors, with the headers it needs exposed', async () => {
    app = await createTestApp({ env: { CORS_ORIGINS: PAGE } });
    for (const res of [
      await app.request.get('/v1/models').set('Origin', PAGE).set('Authorization', bearer()),
      await app.request.get('/v1/models').set('Origin', PAGE),
      await app.request.get('/').set('Origin', PAGE),
      await app.request.get('/users/999').set('Origin', PAGE),
    ]) {
      expect(res.headers['access-control-allow-origin'], `${res.status}`).to.equal(PAGE);
      expect(res.headers['access-control-expose-headers']).to.include('X-Request-Id').and.include('Retry-After').and.include('X-Sample-Rate');
      expect(res.headers.vary).to.match(/Origin/);
    }
    expect((await app.request.get('/v1/models').set('Origin', PAGE)).status).to.equal(401);
  });

  it('gives other origins no CORS headers, and `*` allows any', async () => {
    app = await createTestApp({ env: { CORS_ORIGINS: PAGE } });
    const other = await app.request.get('/v1/models').set('Origin', 'https://evil.example').set('Authorization', bearer());
    expect(other.headers).not.to.have.property('access-control-allow-origin');
    await app.close();
    app = await createTestApp({ env: { CORS_ORIGINS: '*' } });
    expect(
      (await app.request.get('/v1/models').set('Origin', 'https://any.example').set('Authorization', bearer())).headers['access-control-allow-origin'],
    ).to.equal('*');
  });

  it('refuses a CORS_ORIGINS entry that is not an origin', () => {
    for (const bad of ['localhost:5173', 'http://localhost:5173/', 'https://a.example/path', 'ftp//x']) {
      expect(() => loadConfig({ CORS_ORIGINS: bad }), bad).to.throw(/CORS_ORIGINS/);
    }
    expect(loadConfig({}).corsOrigins).to.deep.equal([]);
  });
});
