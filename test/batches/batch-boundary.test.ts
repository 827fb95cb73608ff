/**
 * The Files and Batch API at the key boundary, over a real socket (request targets exactly as
 * written): without a key, or with a path spelled oddly, a request gets 401 or 404 and nothing of
 * another key's files or batches; and `x-batch-line-token` (the mark of a batch's own line on
 * the dispatcher's private listener, line-dispatch.ts) means nothing on the public port.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createKeyStore } from '../../src/auth/key-store.js';
import { rawRequest, type RawResponse } from '../helpers/raw-http.js';
import { bearer, createTestApp, type TestApp } from '../helpers/test-app.js';

const SECRET = 'secret-passage-7f3a';
const JSONL = `{"custom_id":"${SECRET}","method":"POST","url":"/v1/embeddings","body":{"model":"m","input":"${SECRET}"}}\n`;

describe('Files and Batch API: keys, path spellings and the batch line token', () => {
  let app: TestApp;
  let server: Server;
  let port: number;
  let fileId: string;
  let batchId: string;
  let ann: string;
  let limited: string;

  before(async () => {
    app = await createTestApp();
    server = createServer(app.app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    const keys = createKeyStore(app.db, { staticKeys: [] });
    ann = (await keys.create('ann')).key;
    limited = (await keys.create('limited', { rpm: 2 })).key;
    // The admin's file and batch: what a request without a key, or with ann's, must never see.
    const upload = await app.request.post('/v1/files').set('Authorization', bearer()).field('purpose', 'batch').attach('file', Buffer.from(JSONL), 'in.jsonl');
    fileId = upload.body.id;
    const batch = await app.request
      .post('/v1/batches')
      .set('Authorization', bearer())
      .send({ input_file_id: fileId, endpoint: '/v1/embeddings', completion_window: '24h' });
    batchId = batch.body.id;
    expect([upload.status, batch.status]).to.deep.equal([200, 200]);
  });
  after(async () => {
    server.close();
    await app.close();
  });

  const send = (method: string, target: string, headers: Record<string, string> = {}): Promise<RawResponse> => {
    const lines = Object.entries({ Host: '127.0.0.1', 'Content-Length': '0', ...headers }).map(([name, value]) => `${name}: ${value}`);
    return rawRequest(port, [`${method} ${target} HTTP/1.1`, ...lines].join('\r\n'));
  };
  /** Nothing of the admin's: its content never, its ids only as echoed from the request's own target. */
  const expectNothingLeaked = (res: RawResponse, target: string) => {
    for (const secret of [fileId, batchId, SECRET]) {
      if (!target.includes(secret)) expect(res.body, `${target} shows ${secret}`).not.to.contain(secret);
    }
    expect(res.headers['content-type'], target).to.match(/^application\/json/);
  };

  const oddTargets = () => [
    '/v1/files',
    '/V1/files',
    '/v1//files',
    '/v1/files/',
    '/v1/batches',
    '/v1/batches/',
    '/v1/batches/%2e%2e',
    '/v1/batches/..',
    '/v1/batches/%2e%2e/cancel',
    `/v1/batches/${batchId}/%2e%2e`,
    `/V1/batches/${batchId}`,
    `/v1/files/${fileId}`,
    `/v1/files/${fileId}/content`,
    `/v1//files/${fileId}/content`,
    `/v1/files/${fileId.toUpperCase()}/content`,
    '/v1/files/%2e%2e/content',
    '/v1/files/..%2f..%2fapp.db/content',
    `/v1/files/..%2F${fileId}/content`,
  ];

  it('answers 401 to every spelling without a key, and shows nothing', async () => {
    for (const target of oddTargets()) {
      for (const method of ['GET', 'POST', 'DELETE']) {
        const res = await send(method, target);
        expect(res.status, `${method} ${target}`).to.equal(401);
        expectNothingLeaked(res, `${method} ${target}`);
      }
    }
  });

  it("answers another key 404 (or its own, empty lists) on every spelling, never the admin's files or batches", async () => {
    for (const target of oddTargets()) {
      const res = await send('GET', target, { Authorization: bearer(ann) });
      expectNothingLeaked(res, target);
      if (['/v1/files', '/v1/files/', '/v1/batches', '/v1/batches/'].includes(target)) {
        expect(res.status, target).to.equal(200);
        expect(JSON.parse(res.body).data, target).to.deep.equal([]);
      } else expect(res.status, target).to.be.oneOf([404, 405]);
    }
  });

  it('does not take a dot-dot id for a path, even for the admin key', async () => {
    for (const target of [
      '/v1/batches/%2e%2e',
      '/v1/batches/..',
      '/v1/files/%2e%2e',
      '/v1/files/%2e%2e/content',
      '/v1/files/..%2f..%2fapp.db/content',
      '/V1/files',
    ]) {
      const res = await send('GET', target, { Authorization: bearer() });
      expect(res.status, target).to.equal(404);
      expect(res.headers['content-type'], target).to.match(/^application\/json/);
      expect(res.body, target).not.to.contain(SECRET);
    }
  });

  describe('x-batch-line-token on the public port', () => {
    const token = () => ({ 'x-batch-line-token': randomBytes(24).toString('hex') });

    it('is no key: still 401, showing nothing', async () => {
      for (const target of ['/v1/files', `/v1/files/${fileId}/content`, `/v1/batches/${batchId}`, '/v1/batches', '/v1/embeddings']) {
        for (const method of ['GET', 'POST']) {
          const res = await send(method, target, token());
          expect(res.status, `${method} ${target}`).to.equal(401);
          expectNothingLeaked(res, `${method} ${target}`);
        }
      }
    });

    it("gives a key no one else's rights", async () => {
      for (const target of [`/v1/files/${fileId}`, `/v1/files/${fileId}/content`, `/v1/batches/${batchId}`]) {
        const res = await send('GET', target, { Authorization: bearer(ann), ...token() });
        expect(res.status, target).to.equal(404);
        expectNothingLeaked(res, target);
      }
      const cancel = await send('POST', `/v1/batches/${batchId}/cancel`, { Authorization: bearer(ann), ...token() });
      expect(cancel.status).to.equal(404);
      for (const list of ['/v1/files', '/v1/batches']) {
        const res = await send('GET', list, { Authorization: bearer(ann), ...token() });
        expect(JSON.parse(res.body).data, list).to.deep.equal([]);
      }
    });

    it("does not lift the key's rate limit", async () => {
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await send('GET', '/v1/files', { Authorization: bearer(limited), ...token() })).status);
      expect(statuses).to.deep.equal([200, 200, 429, 429]);
    });
  });
});
