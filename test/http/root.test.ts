import { expect } from 'chai';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

describe('GET /', () => {
  let app: TestApp;
  before(async () => {
    app = await createTestApp();
  });
  after(() => app.close());

  it('answers 200 with a plain-text greeting', async () => {
    const res = await app.request.get('/');
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.match(/^text\/plain/);
    expect(res.text).to.match(/hello/i);
  });

  it('answers 404 in plain text for an unknown path', async () => {
    const res = await app.request.get('/nope');
    expect(res.status).to.equal(404);
    expect(res.headers['content-type']).to.match(/^text\/plain/);
  });

  it('answers 404 in JSON for an unknown /v1 path', async () => {
    const res = await app.request.get('/v1/nope').set('Authorization', 'Bearer test-key-0123456789abcdef');
    expect(res.status).to.equal(404);
    expect(res.body.error.code).to.equal('not_found');
  });

  it('answers 405 in JSON with an Allow header for a wrong method on a /v1 route', async () => {
    const res = await app.request.get('/v1/classifications').set('Authorization', 'Bearer test-key-0123456789abcdef');
    expect(res.status).to.equal(405);
    expect(res.headers.allow).to.match(/POST/);
    expect(res.body.error).to.include({ code: 'method_not_allowed', type: 'invalid_request_error' });
  });

  it('gives every response an X-Request-Id', async () => {
    const res = await app.request.get('/');
    expect(res.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
  });

  it('answers 501 in the area format for a method no route uses', async () => {
    const text = await app.request.propfind('/users');
    expect(text.status).to.equal(501);
    expect(text.headers['content-type']).to.match(/^text\/plain/);
    const json = await app.request.propfind('/v1/models').set('Authorization', 'Bearer test-key-0123456789abcdef');
    expect(json.status).to.equal(501);
    expect(json.body.error.code).to.equal('method_not_allowed');
  });
});
