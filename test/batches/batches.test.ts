/** The Batch API end to end on the real MiniLM models (npm run test-models), in-process. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { createKeyStore } from '../../src/auth/key-store.js';
import type { Manifest } from '../../src/inference/manifest.js';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';
import { batchApi } from '../helpers/batch-app.js';
import { expectOpenAiShape } from '../helpers/openai-spec.js';
import { bearer, createTestApp, type TestApp } from '../helpers/test-app.js';

const MODELS_DIR = join(REPO_ROOT, 'models');
const committed = JSON.parse(readFileSync(join(MODELS_DIR, 'models.json'), 'utf8')) as Manifest;

describe('Batch API (real MiniLM)', function () {
  this.timeout(60_000);
  let app: TestApp;
  before(async function () {
    if (!existsSync(join(MODELS_DIR, 'all-MiniLM-L6-v2', '.installed.json'))) this.skip();
    app = await createTestApp({
      manifest: {
        models: committed.models.filter((entry) => ['minilm-embeddings', 'minilm-sentiment', 'minilm-topics'].includes(entry.id)),
        aliases: { 'text-embedding-3-small': { task: 'embeddings', prefer: ['minilm-embeddings'] } },
      },
      modelsDir: MODELS_DIR,
      env: { BATCH_CONCURRENCY: '2' },
    });
    await app.app.batches.start();
  });
  after(() => app?.close());

  const { upload, create, settle, lines: content } = batchApi(() => app);
  const embedLine = (customId: string, input: unknown, model = 'text-embedding-3-small') => ({
    custom_id: customId,
    method: 'POST',
    url: '/v1/embeddings',
    body: { model, input },
  });

  it('embeds every line once, as the synchronous route does; bad lines fail alone by custom_id', async () => {
    const texts = Array.from({ length: 12 }, (_, i) => `Sentence number ${i} about cats and dogs.`);
    const lines = [
      ...texts.map((text, i) => embedLine(`ok-${i}`, text)),
      embedLine('no-model', 'x', 'no-such-model'),
      embedLine('empty', ''),
      { custom_id: 'wrong-url', method: 'POST', url: '/v1/classifications', body: { model: 'minilm-sentiment', query: 'x' } },
    ];
    const batch = await create(await upload(lines), '/v1/embeddings', undefined, { metadata: { job: 'nightly' } });
    expect(batch).to.include({ status: 'validating', endpoint: '/v1/embeddings', completion_window: '24h' });
    expect(batch.metadata).to.deep.equal({ job: 'nightly' });

    const done = await settle(batch.id);
    expect(done.status).to.equal('completed');
    expect(done.request_counts).to.deep.equal({ total: 15, completed: 12, failed: 3 });
    expect(done.created_at).to.be.at.most(done.in_progress_at);
    expect(done.in_progress_at).to.be.at.most(done.finalizing_at);
    expect(done.finalizing_at).to.be.at.most(done.completed_at);
    expect(done.expires_at - done.created_at).to.equal(24 * 3600);

    const output = await content(done.output_file_id);
    expect(output.map((line) => line.custom_id)).to.deep.equal(texts.map((_, i) => `ok-${i}`));
    const sync = await app.request.post('/v1/embeddings').set('Authorization', bearer()).send({ model: 'text-embedding-3-small', input: texts });
    output.forEach((line, i) => {
      expect(line.response?.status_code).to.equal(200);
      expect(line.response?.body.data[0].embedding).to.deep.equal(sync.body.data[i].embedding);
      expect(line.error).to.equal(null);
    });
    const errors = await content(done.error_file_id);
    expect(errors.map((line) => [line.custom_id, line.response?.status_code ?? line.error?.code])).to.deep.equal([
      ['no-model', 404],
      ['empty', 400],
      ['wrong-url', 'invalid_request'],
    ]);
    const file = await app.request.get(`/v1/files/${done.output_file_id}`).set('Authorization', bearer());
    expect(file.body.purpose).to.equal('batch_output');
  });

  it('runs classification lines', async () => {
    const lines = ['a gorgeous, witty, seductive movie', 'a dull and tedious film'].map((query, i) => ({
      custom_id: `c${i}`,
      method: 'POST',
      url: '/v1/classifications',
      body: { model: 'minilm-sentiment', query },
    }));
    const done = await settle((await create(await upload(lines), '/v1/classifications')).id);
    const output = await content(done.output_file_id);
    expect(output.map((line) => line.response?.body.labels[0].label)).to.deep.equal(['positive', 'negative']);
  });

  it('fails a batch whose file cannot be read line by line, naming the lines', async () => {
    const done = await settle((await create(await upload([embedLine('a', 'x'), 'not json', embedLine('a', 'y')]), '/v1/embeddings')).id);
    expect(done.status).to.equal('failed');
    expect(done.errors.data.map((error: { code: string; line: number }) => [error.code, error.line])).to.deep.equal([
      ['invalid_json_line', 2],
      ['duplicate_custom_id', 3],
    ]);
    expect(done.failed_at).to.be.a('number');
  });

  it('refuses what it does not run: 400 naming the field', async () => {
    const input = await upload([embedLine('a', 'x')]);
    for (const [body, field] of [
      [{ input_file_id: input, endpoint: '/v1/chat/completions', completion_window: '24h' }, 'endpoint'],
      [{ input_file_id: input, endpoint: '/v1/embeddings', completion_window: '48h' }, 'completion_window'],
      [{ input_file_id: 'file-nope', endpoint: '/v1/embeddings', completion_window: '24h' }, 'input_file_id'],
    ] as const) {
      const res = await app.request.post('/v1/batches').set('Authorization', bearer()).send(body);
      expect(res.status, field).to.equal(400);
      expect(res.body.error.message).to.contain(field);
    }
  });

  it('keeps batches to their key: another key cannot see, list, read or cancel them', async () => {
    const keys = createKeyStore(app.db, { staticKeys: [] });
    const { key: ann } = await keys.create('ann');
    const { key: bob } = await keys.create('bob');
    const done = await settle((await create(await upload([embedLine('a', 'x')], ann), '/v1/embeddings', ann)).id, ann);
    expect(done.status).to.equal('completed');
    expect((await app.request.get(`/v1/batches/${done.id}`).set('Authorization', bearer(bob))).status).to.equal(404);
    expect((await app.request.post(`/v1/batches/${done.id}/cancel`).set('Authorization', bearer(bob))).status).to.equal(404);
    expect((await app.request.get(`/v1/files/${done.output_file_id}/content`).set('Authorization', bearer(bob))).status).to.equal(404);
    const list = await app.request.get('/v1/batches').set('Authorization', bearer(bob));
    expectOpenAiShape('ListBatchesResponse', list.body);
    expect(list.body.data).to.deep.equal([]);
    expect((await app.request.get('/v1/batches').set('Authorization', bearer(ann))).body.data.map((b: { id: string }) => b.id)).to.deep.equal([done.id]);
  });

  it("runs each line under the batch key's policy: a model outside its list fails that line alone", async () => {
    const keys = createKeyStore(app.db, { staticKeys: [] });
    const { key } = await keys.create('sentiment-only', { models: ['minilm-sentiment'] });
    const lines = [
      { custom_id: 'allowed', method: 'POST', url: '/v1/classifications', body: { model: 'minilm-sentiment', query: 'lovely' } },
      { custom_id: 'refused', method: 'POST', url: '/v1/classifications', body: { model: 'minilm-topics', query: 'lovely' } },
    ];
    const done = await settle((await create(await upload(lines, key), '/v1/classifications', key)).id, key);
    expect(done.request_counts).to.deep.equal({ total: 2, completed: 1, failed: 1 });
    const [refused] = await content(done.error_file_id, key);
    expect(refused?.custom_id).to.equal('refused');
    expect(refused?.response?.status_code).to.equal(403);
    expect(refused?.response?.body.error.code).to.equal('model_not_allowed');
  });

  it('cancels mid-way: a partial output with each finished line once', async () => {
    const lines = Array.from({ length: 300 }, (_, i) => embedLine(`l${i}`, `text ${i} `.repeat(40)));
    const batch = await create(await upload(lines), '/v1/embeddings');
    for (;;) {
      const now = await app.request.get(`/v1/batches/${batch.id}`).set('Authorization', bearer());
      if (now.body.request_counts.completed > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const cancelling = await app.request.post(`/v1/batches/${batch.id}/cancel`).set('Authorization', bearer());
    expect(cancelling.status).to.equal(200);
    expect(cancelling.body.status).to.equal('cancelling');
    const done = await settle(batch.id);
    expect(done.status).to.equal('cancelled');
    expect(done.cancelled_at).to.be.at.least(done.cancelling_at);
    expect(done.request_counts.completed).to.be.within(1, 299);
    const output = await content(done.output_file_id);
    const ids = output.map((line) => line.custom_id);
    expect(new Set(ids).size).to.equal(ids.length);
    expect(ids.length).to.equal(done.request_counts.completed);
    // Cancelling again answers the batch as it is.
    expect((await app.request.post(`/v1/batches/${batch.id}/cancel`).set('Authorization', bearer())).status).to.equal(200);
  });

  it('pages GET /v1/batches with after and limit', async () => {
    const first = await app.request.get('/v1/batches?limit=2').set('Authorization', bearer());
    expectOpenAiShape('ListBatchesResponse', first.body);
    expect(first.body.data).to.have.length(2);
    expect(first.body.has_more).to.equal(true);
    const next = await app.request.get(`/v1/batches?limit=100&after=${first.body.last_id}`).set('Authorization', bearer());
    const all = await app.request.get('/v1/batches?limit=100').set('Authorization', bearer());
    expect([...first.body.data, ...next.body.data].map((b: { id: string }) => b.id)).to.deep.equal(all.body.data.map((b: { id: string }) => b.id));
  });

  it('reports the queue and lines done in /metrics', async () => {
    const metrics = await app.request.get('/metrics').set('Authorization', bearer());
    expect(metrics.text).to.match(/batch_lines_total\{outcome="completed"\} \d+/);
    expect(metrics.text).to.match(/batch_queue_lines \d+/);
    expect(metrics.text).to.match(/batches\{status="completed"\} \d+/);
  });
});
