/** GET /playground: the built page and its two files, no key, strict headers; a clear 404 before the build. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import Koa from 'koa';
import supertest from 'supertest';
import { buildPlayground } from '../../scripts/build-playground.js';
import { createPlaygroundRouter } from '../../src/http/routes/playground-routes.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

describe('GET /playground', function () {
  this.timeout(30_000);
  let app: TestApp;

  before(async () => {
    await buildPlayground();
    app = await createTestApp();
  });
  after(() => app.close());

  it('serves the page without a key, with a CSP that allows this origin only', async () => {
    const response = await app.request.get('/playground').expect(200).expect('Content-Type', 'text/html; charset=utf-8');
    const csp = response.headers['content-security-policy'] as string;
    expect(csp).to.include("default-src 'none'").and.include("script-src 'self'").and.include("connect-src 'self'").and.include("frame-ancestors 'none'");
    expect(csp).to.not.match(/https?:|\*|unsafe-/);
    expect(response.headers['x-content-type-options']).to.equal('nosniff');
    expect(response.headers['referrer-policy']).to.equal('no-referrer');
    expect(response.text).to.include('<script type="module" src="/playground/playground.js"></script>').and.include('<label for="api-key">API key</label>');
  });

  it('serves the bundle and the style sheet, and nothing else from the folder', async () => {
    const script = await app.request.get('/playground/playground.js').expect(200).expect('Content-Type', 'text/javascript; charset=utf-8');
    expect(script.text)
      .to.include('/v1/models')
      .and.not.match(/\bfrom\s*["']/); // one self-contained module
    await app.request.get('/playground/playground.css').expect(200).expect('Content-Type', 'text/css; charset=utf-8');
    for (const path of ['/playground/missing.js', '/playground/..%2Fpackage.json', '/playground/%2e%2e/package.json', '/Playground']) {
      await app.request.get(path).expect(404);
    }
    await app.request.get('/playground/').expect(302).expect('Location', '/playground');
  });

  it('answers 404 naming the build command (and no file path) while the bundle is missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lis-playground-'));
    try {
      const request = supertest(new Koa().use(createPlaygroundRouter(join(dir, 'absent')).routes()).callback());
      const response = await request.get('/playground').expect(404).expect('Content-Type', 'text/plain; charset=utf-8');
      expect(response.text).to.include('npm run build').and.not.include(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
