/**
 * The 24-h completion window: a batch still running when its window ends is `expired`, and each
 * line it never ran is in its error file with OpenAI's `batch_expired` error. The app's clock is
 * moved a day on instead of waiting one.
 */
import { expect } from 'chai';
import { createKeyStore } from '../../src/auth/key-store.js';
import { batchApi } from '../helpers/batch-app.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { until } from '../helpers/until.js';

const DAY_MS = 24 * 3600 * 1000;

describe('Batch API: the 24-h completion window', function () {
  this.timeout(30_000);
  let app: TestApp;
  let shiftMs = 0;
  before(async () => {
    app = await createTestApp({ now: () => new Date(Date.now() + shiftMs) });
    await app.app.batches.start();
  });
  after(() => app?.close());

  const api = batchApi(() => app);

  it('ends a batch past its window expired, each unfinished line in the error file as batch_expired', async () => {
    // Three requests a minute: the upload, the batch and its first line (which fails: no such model);
    // the other lines wait for the key's limit. The admin key reads the batch.
    const { key } = await createKeyStore(app.db, { staticKeys: [] }).create('slow', { rpm: 3 });
    const lines = Array.from({ length: 4 }, (_, i) => ({
      custom_id: `line-${i}`,
      method: 'POST',
      url: '/v1/embeddings',
      body: { model: 'no-such-model', input: `text ${i}` },
    }));
    const created = await api.create(await api.upload(lines, key), '/v1/embeddings', key);
    const id = created.id as string;
    expect(created.expires_at - created.created_at).to.equal(24 * 3600);

    let running: any;
    await until(async () => {
      running = await api.get(id);
      return running.status === 'in_progress' && running.request_counts.failed === 1;
    }, 'the first line ran');
    expect(running.request_counts).to.deep.equal({ total: 4, completed: 0, failed: 1 });

    shiftMs = DAY_MS + 1000;
    app.app.batches.wake();
    let ended: any;
    await until(async () => {
      ended = await api.get(id);
      return ['completed', 'failed', 'expired', 'cancelled'].includes(ended.status);
    }, 'the batch ended');
    expect(ended.status).to.equal('expired');
    expect(ended.expired_at).to.be.at.least(ended.expires_at);
    expect(ended.in_progress_at).to.be.at.least(ended.created_at).and.below(ended.expires_at);
    for (const absent of ['finalizing_at', 'completed_at', 'failed_at', 'cancelling_at', 'cancelled_at', 'output_file_id']) {
      expect(ended, absent).not.to.have.property(absent);
    }
    expect(ended.request_counts).to.deep.equal({ total: 4, completed: 0, failed: 4 });

    const errors = await api.lines(ended.error_file_id);
    expect(errors.map((line) => line.custom_id)).to.deep.equal(lines.map((line) => line.custom_id));
    expect(errors[0]?.response?.status_code).to.equal(404);
    for (const line of errors.slice(1)) {
      expect(line).to.deep.include({
        response: null,
        error: { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' },
      });
      expect(line.id).to.match(/^batch_req_/);
    }
  });
});
