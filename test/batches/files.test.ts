import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { createKeyStore } from '../../src/auth/key-store.js';
import { bearer, createTestApp, type TestApp } from '../helpers/test-app.js';
import { expectOpenAiShape } from '../helpers/openai-spec.js';
import { testDatabaseKinds } from '../helpers/test-databases.js';

const JSONL = '{"custom_id":"a","method":"POST","url":"/v1/embeddings","body":{"model":"m","input":"hi"}}\n';

for (const database of testDatabaseKinds()) {
  describe(`Files API (${database})`, () => {
    let app: TestApp;
    beforeEach(async () => {
      app = await createTestApp({ database, env: { FILES_MAX_MB: '1', FILES_MAX_TOTAL_MB: '2' } });
    });
    afterEach(() => app.close());
    const upload = (key: string | undefined, content: string | Buffer, purpose = 'batch', filename = 'in.jsonl') =>
      app.request.post('/v1/files').set('Authorization', bearer(key)).field('purpose', purpose).attach('file', Buffer.from(content), filename);
    /** An upload with `expires_after` of `seconds` from its creation. */
    const uploadExpiring = (seconds: number, purpose: string, content: string) =>
      app.request
        .post('/v1/files')
        .set('Authorization', bearer())
        .field('purpose', purpose)
        .field('expires_after[anchor]', 'created_at')
        .field('expires_after[seconds]', String(seconds))
        .attach('file', Buffer.from(content), 'in.jsonl');

    it('stores a file with its SHA-256 and serves it back in OpenAI shapes', async () => {
      const created = await upload(undefined, JSONL);
      expect(created.status, created.text).to.equal(200);
      expectOpenAiShape('OpenAIFile', created.body);
      expect(created.body).to.include({ object: 'file', bytes: Buffer.byteLength(JSONL), filename: 'in.jsonl', purpose: 'batch' });
      expect(created.body.sha256).to.equal(createHash('sha256').update(JSONL).digest('hex'));
      // purpose=batch files expire after 30 days unless told otherwise, as OpenAI's do.
      expect(created.body.expires_at - created.body.created_at).to.equal(30 * 24 * 3600);

      const id = created.body.id as string;
      const one = await app.request.get(`/v1/files/${id}`).set('Authorization', bearer());
      expectOpenAiShape('OpenAIFile', one.body);
      const content = await app.request
        .get(`/v1/files/${id}/content`)
        .set('Authorization', bearer())
        .buffer(true)
        .parse((res, done) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => done(null, Buffer.concat(chunks)));
        });
      expect(content.status).to.equal(200);
      expect((content.body as Buffer).toString()).to.equal(JSONL);
      expect(content.headers['x-content-sha256']).to.equal(created.body.sha256);

      const list = await app.request.get('/v1/files').set('Authorization', bearer());
      expectOpenAiShape('ListFilesResponse', list.body);
      expect(list.body.data.map((file: { id: string }) => file.id)).to.deep.equal([id]);

      const deleted = await app.request.delete(`/v1/files/${id}`).set('Authorization', bearer());
      expectOpenAiShape('DeleteFileResponse', deleted.body);
      expect((await app.request.get(`/v1/files/${id}`).set('Authorization', bearer())).status).to.equal(404);
    });

    it('keeps each key to its own files; admin keys see all', async () => {
      const keys = createKeyStore(app.db, { staticKeys: [] });
      const { key: ann } = await keys.create('ann');
      const { key: bob } = await keys.create('bob');
      const { key: root } = await keys.create('root', { admin: true });
      const mine = (await upload(ann, JSONL)).body.id as string;
      for (const path of [`/v1/files/${mine}`, `/v1/files/${mine}/content`]) {
        expect((await app.request.get(path).set('Authorization', bearer(bob))).status, path).to.equal(404);
      }
      expect((await app.request.delete(`/v1/files/${mine}`).set('Authorization', bearer(bob))).status).to.equal(404);
      expect((await app.request.get('/v1/files').set('Authorization', bearer(bob))).body.data).to.deep.equal([]);
      expect((await app.request.get(`/v1/files/${mine}`).set('Authorization', bearer(ann))).status).to.equal(200);
      expect((await app.request.get(`/v1/files/${mine}`).set('Authorization', bearer(root))).status).to.equal(200);
    });

    it('pages the list with after and limit', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await upload(undefined, `${i}\n`, 'user_data', `${i}.txt`)).body.id);
      const first = await app.request.get('/v1/files?limit=2&order=asc').set('Authorization', bearer());
      expect(first.body.has_more).to.equal(true);
      const next = await app.request.get(`/v1/files?limit=2&order=asc&after=${first.body.last_id}`).set('Authorization', bearer());
      expect([...first.body.data, ...next.body.data].map((file: { id: string }) => file.id).sort()).to.deep.equal([...ids].sort());
      expect(next.body.has_more).to.equal(false);
    });

    it('refuses what it cannot store: 400 naming the field, 413 past the size limits', async () => {
      const fineTune = await upload(undefined, JSONL, 'fine-tune');
      expect(fineTune.status).to.equal(400);
      expect(fineTune.body.error.message).to.contain('"purpose"');
      const noFile = await app.request.post('/v1/files').set('Authorization', bearer()).field('purpose', 'batch');
      expect(noFile.status).to.equal(400);
      const badExpiry = await uploadExpiring(60, 'batch', JSONL);
      expect(badExpiry.status).to.equal(400);
      expect(badExpiry.body.error.message).to.contain('expires_after.seconds');

      const tooBig = await upload(undefined, Buffer.alloc(1024 * 1024 + 1, 97), 'user_data');
      expect(tooBig.status).to.equal(413);
      expect(tooBig.body.error.message).to.contain('FILES_MAX_MB');
      const megabyte = Buffer.alloc(1024 * 1024, 97);
      for (let i = 0; i < 2; i++) {
        const stored = await upload(undefined, megabyte, 'user_data');
        expect(stored.status, stored.text).to.equal(200);
      }
      const full = await upload(undefined, 'x', 'user_data');
      expect(full.status).to.equal(413);
      expect(full.body.error.message).to.contain('FILES_MAX_TOTAL_MB');
      // Nothing refused was kept.
      expect((await app.request.get('/v1/files').set('Authorization', bearer())).body.data).to.have.length(2);
    });

    it('honours expires_after: an expired file is gone', async () => {
      const created = await uploadExpiring(3600, 'user_data', 'x');
      expect(created.body.expires_at - created.body.created_at).to.equal(3600);
      await app.db.updateTable('files').set({ expires_at: 1 }).where('id', '=', created.body.id).execute();
      expect((await app.request.get(`/v1/files/${created.body.id}`).set('Authorization', bearer())).status).to.equal(404);
    });
  });
}
