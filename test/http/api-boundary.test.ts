import { expect } from 'chai';
import fc from 'fast-check';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createKeyStore } from '../../src/auth/key-store.js';
import { canonicalPath, isApiPath } from '../../src/http/api-boundary.js';
import { fuzzRuns } from '../helpers/fuzz-runs.js';
import { rawRequest } from '../helpers/raw-http.js';
import { registeredRoutes } from '../helpers/registered-routes.js';
import { createTestApp, TEST_API_KEY, type TestApp } from '../helpers/test-app.js';

describe('the /v1 key boundary', () => {
  let app: TestApp;
  let server: Server;
  let port: number;
  let revoked: string;
  const apiRoutes: { method: string; path: string }[] = [];

  before(async () => {
    app = await createTestApp();
    const keys = createKeyStore(app.db, { staticKeys: [] });
    const created = await keys.create('revoked');
    revoked = created.key;
    await keys.revoke(String(created.info.id));
    server = createServer(app.app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    for (const route of registeredRoutes(app.app)) {
      if (route.path.startsWith('/v1')) apiRoutes.push({ method: route.method, path: route.path.replace(/\{\w+\}/g, 'x') });
    }
  });
  after(async () => {
    server.close();
    await app.close();
  });

  /** A 401 in the API's JSON error format, never anything a model route would answer. */
  async function expectRefused(method: string, target: string, authorization?: string) {
    const head = `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1${authorization ? `\r\nAuthorization: ${authorization}` : ''}\r\nContent-Length: 0`;
    const res = await rawRequest(port, head);
    expect(res.status, `${method} ${target}`).to.equal(401);
    expect(res.headers['content-type'], `${method} ${target}`).to.match(/^application\/json/);
    expect(res.headers['www-authenticate']).to.match(/^Bearer/);
    return res;
  }

  const spellings = (path: string) => [
    path.replace('/v1', '/V1'),
    path.toUpperCase(),
    `${path}/`,
    `/${path}`,
    path.replace('/v1/', '/v1//'),
    path.replace('/v1', '/%76%31'),
    path.replace('/v1', '/%2576%2531'),
    path.replace('/v1/', '/v1%2F'),
    path.replace('/v1', '/v1/./'),
    path.replace('/v1', '/users/../v1'),
    path.replace('/v1', '/x/..%2Fv1'),
    path.replace('/v1', '/v1;a=b'),
    `http://127.0.0.1${path}`,
    `HTTP://EXAMPLE.ORG${path.replace('/v1', '/V1')}`,
    `${path}?x=/users`,
  ];

  it('refuses every /v1 route without a key, however its path is written', async () => {
    expect(apiRoutes.length).to.be.greaterThan(8);
    for (const { method, path } of apiRoutes) {
      for (const target of [path, ...spellings(path)]) await expectRefused(method, target);
    }
  });

  it('refuses a revoked key on every spelling', async () => {
    for (const { method, path } of apiRoutes) {
      for (const target of spellings(path).slice(0, 4)) await expectRefused(method, target, `Bearer ${revoked}`);
    }
  });

  it('checks the key before answering 404 for unknown /v1 paths or 405 for wrong methods', async () => {
    await expectRefused('GET', '/v1/no-such-route');
    await expectRefused('GET', '/V1/NO-SUCH-ROUTE');
    await expectRefused('DELETE', '/v1/models');
    await expectRefused('PROPFIND', '/v1/models');
    await expectRefused('OPTIONS', '/v1/models');
    await expectRefused('GET', '/v1');
  });

  it('with a key, other spellings of a /v1 path are unknown routes answered in JSON', async () => {
    const res = await rawRequest(port, `GET /V1/models HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_API_KEY}`);
    expect(res.status).to.equal(404);
    expect(res.headers['content-type']).to.match(/^application\/json/);
    const ok = await rawRequest(port, `GET http://127.0.0.1/v1/models HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_API_KEY}`);
    expect(ok.status).to.equal(200);
  });

  it('leaves area A and the root pages open', async () => {
    for (const target of ['/', '/users', '/openapi.json', '/docs', '/v10', '/v1beta/models']) {
      const res = await rawRequest(port, `GET ${target} HTTP/1.1\r\nHost: x`);
      expect(res.status, target).to.be.oneOf([200, 404]);
    }
  });

  it('never lets a mangled spelling of a /v1 route past the key (property)', async () => {
    const mangle = fc.record({
      route: fc.constantFrom(...apiRoutes),
      upper: fc.array(fc.boolean(), { minLength: 64, maxLength: 64 }),
      encode: fc.array(fc.boolean(), { minLength: 64, maxLength: 64 }),
      prefix: fc.constantFrom('', '/', '/.', '/users/..', '/a/b/../..', 'http://h', '\\'),
      suffix: fc.constantFrom('', '/', '/.', '//', '?a=1', '#x', '/%2e'),
    });
    await fc.assert(
      fc.asyncProperty(mangle, async ({ route, upper, encode, prefix, suffix }) => {
        const chars = [...route.path].map((char, index) => {
          const cased = upper[index % 64] ? char.toUpperCase() : char;
          return encode[index % 64] && /[a-z0-9]/i.test(char) ? `%${char.charCodeAt(0).toString(16)}` : cased;
        });
        const target = `${prefix}${chars.join('')}${suffix}`.replace(/^(?!\/|http)/, '/');
        const res = await rawRequest(port, `${route.method} ${target} HTTP/1.1\r\nHost: x\r\nContent-Length: 0`);
        // 400 is Node refusing a malformed target before the app sees it.
        expect(res.status, `${route.method} ${target}`).to.be.oneOf([400, 401]);
      }),
      { numRuns: fuzzRuns(60) },
    );
  });
});

describe('isApiPath', () => {
  it('reads every spelling of /v1 as the API', () => {
    for (const path of [
      '/v1',
      '/v1/',
      '/V1/models',
      '//v1',
      '/%76%31/x',
      '/%2576%2531/x',
      '/%76%31/%ZZ',
      '/a/../v1/x',
      '\\v1\\x',
      '/v1%2fmodels',
      '/v1;x',
      '/v1.json',
      '/v1/../users',
    ]) {
      expect(isApiPath(path), path).to.equal(true);
    }
    for (const path of ['/', '/users', '/users/1', '/users/%', '/users/%25', '/users/%ZZ', '/%E0%A4%A', '/docs', '/openapi.json', '/v10', '/v1beta']) {
      expect(isApiPath(path), path).to.equal(false);
    }
  });

  it('canonicalises dot segments, repeated slashes and case', () => {
    expect(canonicalPath('/A//b/./c/../D/')).to.equal('/a/b/d');
    expect(canonicalPath('/../..')).to.equal('/');
  });
});
