/** files and batches through the client, on the real server and a random-weight fixture classifier. */
import { expect } from 'chai';
import { InferenceError } from '../../src/client/index.js';
import { rejection } from '../helpers/rejection.js';
import { serveTestApp, type ServedApp } from './serve-test-app.js';
import { FIXTURE_MODELS, FIXTURE_MODELS_DIR } from '../helpers/fixture-models.js';

describe('client: files and batches (fixture classifier)', () => {
  let served: ServedApp;
  before(async () => {
    served = await serveTestApp({
      manifest: {
        models: [FIXTURE_MODELS.sentiment],
      },
      modelsDir: FIXTURE_MODELS_DIR,
    });
    await served.app.app.batches.start();
  });
  after(() => served?.close());

  it('uploads, lists, reads and deletes a file', async () => {
    const client = served.client();
    const file = await client.files.upload({ file: 'hello\n', filename: 'hello.txt', purpose: 'user_data', expiresAfterSeconds: 3600 });
    expect(file).to.include({ object: 'file', bytes: 6, filename: 'hello.txt', purpose: 'user_data' });
    expect(file.expires_at! - file.created_at).to.equal(3600);
    expect((await client.files.list({ purpose: 'user_data' })).data.map((f) => f.id)).to.include(file.id);
    expect(await client.files.text(file.id)).to.equal('hello\n');
    await client.files.delete(file.id);
    const error = await rejection(client.files.get(file.id));
    expect(error).to.be.instanceOf(InferenceError);
    expect((error as InferenceError).status).to.equal(404);
  });

  it('submits a batch, follows its progress and reads its results by custom_id', async () => {
    const client = served.client();
    const lines = ['great', 'awful', 'fine'].map((query) => ({
      custom_id: query,
      method: 'POST' as const,
      url: '/v1/classifications',
      body: { model: 'bert-sentiment-random', query },
    }));
    lines.push({ custom_id: 'bad', method: 'POST', url: '/v1/classifications', body: { model: 'bert-sentiment-random', query: '' } });
    const batch = await client.batches.submit('/v1/classifications', lines, { metadata: { from: 'client' } });
    expect(batch.status).to.equal('validating');
    const seen: string[] = [];
    const done = await client.batches.wait(batch.id, { intervalMs: 50, onProgress: (now) => seen.push(now.status) });
    expect(done.status).to.equal('completed');
    expect(seen.at(-1)).to.equal('completed');
    expect(done.request_counts).to.deep.equal({ total: 4, completed: 3, failed: 1 });
    const results = await client.batches.results<{ labels: { label: string }[] }>(done);
    expect(results.map((result) => [result.custom_id, result.response?.status_code])).to.deep.equal([
      ['great', 200],
      ['awful', 200],
      ['fine', 200],
      ['bad', 400],
    ]);
    expect(results[0]!.response!.body.labels).to.have.length(2);
    expect((await client.batches.list({ limit: 1 })).data[0]!.id).to.equal(batch.id);
    const cancel = await rejection(client.batches.cancel(batch.id));
    expect((cancel as InferenceError).status).to.equal(409);
  });
});
