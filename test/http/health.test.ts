import { expect } from 'chai';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

describe('health and readiness probes', () => {
  let app: TestApp;
  beforeEach(async () => {
    app = await createTestApp();
  });
  afterEach(() => app.close());

  it('answers /health and /healthz without a key, on both the fast path and through Koa', async () => {
    for (const [path, body, type] of [
      // speaches' answer: its auth_test reads {"message": "OK"} from /health.
      ['/health', '{"message":"OK"}', /^application\/json/],
      ['/healthz', 'ok', /^text\/plain/],
    ] as const) {
      for (const spelling of [path, `${path}?probe=1`]) {
        const res = await app.request.get(spelling);
        expect(res.status, spelling).to.equal(200);
        expect(res.text).to.equal(body);
        expect(res.headers['content-type']).to.match(type);
      }
    }
  });

  it('is ready with the database up and migrated, and not while draining', async () => {
    expect((await app.request.get('/readyz')).text).to.equal('ready');
    app.app.beginDraining();
    const draining = await app.request.get('/readyz');
    expect(draining.status).to.equal(503);
    expect(draining.text).to.match(/^draining/);
    // Liveness is unaffected: the process is still alive and serving.
    expect((await app.request.get('/healthz')).status).to.equal(200);
  });

  it('is not ready when a migration is missing or the database is gone', async () => {
    await sql`delete from kysely_migration`.execute(app.db);
    const unmigrated = await app.request.get('/readyz');
    expect(unmigrated.status).to.equal(503);
    expect(unmigrated.text).to.match(/^database migrations not applied: /);
  });
});
