import { expect } from 'chai';
import type { Response } from 'supertest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/** Everything a client can see of a response but the per-response Date and request id. */
function visible(res: Response): Record<string, unknown> {
  const { date: _date, 'x-request-id': _id, ...headers } = res.headers as Record<string, string>;
  return { status: res.status, headers, body: res.text ?? '' };
}

describe('constant responses (answered before Koa)', () => {
  let app: TestApp;
  before(async () => {
    app = await createTestApp();
  });
  after(() => app.close());

  // `/?` and a GET with a body are not exact constant requests, so Koa and the root router answer them.
  it('answers GET / exactly as the Koa route does', async () => {
    const fast = await app.request.get('/');
    const viaKoa = await app.request.get('/?');
    const withBody = await app.request.get('/').set('Content-Type', 'text/plain').send('x');
    expect(fast.text).to.match(/hello/i);
    expect(visible(fast)).to.deep.equal(visible(viaKoa));
    expect(visible(fast)).to.deep.equal(visible(withBody));
  });

  it('answers HEAD / with the headers of GET / and no body', async () => {
    const fast = await app.request.head('/');
    const viaKoa = await app.request.head('/?');
    expect(fast.status).to.equal(200);
    expect(fast.headers['content-length']).to.equal(String(Buffer.byteLength((await app.request.get('/')).text)));
    expect(visible(fast)).to.deep.equal(visible(viaKoa));
  });

  it('echoes a client X-Request-Id (up to 128 characters) or makes one, on both paths', async () => {
    for (const path of ['/', '/?']) {
      expect((await app.request.get(path).set('X-Request-Id', 'trace-1')).headers['x-request-id']).to.equal('trace-1');
      expect((await app.request.get(path).set('X-Request-Id', 'a'.repeat(300))).headers['x-request-id']).to.equal('a'.repeat(128));
      expect((await app.request.get(path)).headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
    }
  });

  it('leaves other methods, paths and spellings to the app', async () => {
    // POST / is TEI's root route, behind the key.
    expect((await app.request.post('/')).status).to.equal(401);
    expect((await app.request.put('/')).status).to.equal(405);
    expect((await app.request.get('/nope')).status).to.equal(404);
    // Routes are case-sensitive; the fast path must not widen that.
    expect((await app.request.get('/DOCS')).status).to.equal(404);
    const docs = await app.request.get('/docs');
    expect(docs.status).to.equal(200);
    expect(docs.headers['content-type']).to.match(/^text\/html/);
  });
});
