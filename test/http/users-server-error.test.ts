import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import supertest from 'supertest';
import { loadConfig } from '../../src/config/load-config.js';
import { createApp } from '../../src/http/create-app.js';
import { ENGINES } from '../../src/inference/engines.js';
import { ModelRegistry } from '../../src/inference/model-registry.js';
import { createLogger } from '../../src/logger.js';
import { openDatabase } from '../../src/users/open-database.js';

describe('/users when the database fails', () => {
  let dir: string;
  let lines: Array<Record<string, any>>;
  let request: supertest.Agent;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lis-test-'));
    const databasePath = join(dir, 'app.db');
    const config = loadConfig({ DATABASE_URL: `sqlite:${databasePath}`, MODELS_DIR: join(dir, 'models') });
    const db = await openDatabase(databasePath);
    lines = [];
    const logger = createLogger('info', (line) => lines.push(JSON.parse(line)));
    const models = new ModelRegistry({ manifest: { models: [] }, modelsDir: config.modelsDir, engines: ENGINES });
    request = supertest.agent(createApp({ db, models, config, logger }).callback());
    // Every query from here on fails inside Kysely, as a lost or corrupt database would.
    await db.destroy();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const requests: Array<[string, () => supertest.Test]> = [
    ['GET /users', () => request.get('/users')],
    ['POST /users', () => request.post('/users').send({ name: 'Ann', email: 'ann@example.org' })],
    ['PUT /users/1', () => request.put('/users/1').send({ name: 'Ann', email: 'ann@example.org' })],
    ['DELETE /users/1', () => request.delete('/users/1')],
  ];
  for (const [what, send] of requests) {
    it(`${what} answers 500 with a generic plain-text body and logs the error under the request id`, async () => {
      lines.length = 0;
      const res = await send();
      expect(res.status).to.equal(500);
      expect(res.headers['content-type']).to.match(/^text\/plain/);
      expect(res.text).to.equal('Internal Server Error');
      const requestId = res.headers['x-request-id'];
      expect(requestId).to.be.a('string').and.not.equal('');
      // The error, and the request's access line (metrics.ts).
      const errors = lines.filter((line) => line.level === 'error');
      expect(errors).to.have.length(1);
      expect(errors[0]).to.include({ level: 'error', requestId });
      expect(errors[0]!.error.message).to.match(/destroyed/i);
      expect(errors[0]!.error.stack).to.be.a('string');
      expect(lines.filter((line) => line.message === 'request')).to.have.length(1);
    });
  }

  it('keeps a client-supplied X-Request-Id so logs and client reports can be matched', async () => {
    lines.length = 0;
    const res = await request.get('/users').set('X-Request-Id', 'client-req-7');
    expect(res.headers['x-request-id']).to.equal('client-req-7');
    expect(lines[0]).to.include({ requestId: 'client-req-7' });
  });
});
