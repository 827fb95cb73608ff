/**
 * Another process (the keys CLI, a sqlite3 shell) holding the SQLite write lock must not stall
 * the server: better-sqlite3 is synchronous, so a busy_timeout would block the event loop.
 */
import { monitorEventLoopDelay, performance, type IntervalHistogram } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import SQLite from 'better-sqlite3';
import { expect } from 'chai';
import type supertest from 'supertest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/** Far below the old 5 s busy_timeout, far above any scheduling noise. */
const STALL_LIMIT_MS = 500;
const DEADLINE_MS = 1_500;

describe('/users while another process holds the database write lock', () => {
  let app: TestApp;
  let request: supertest.Agent;
  let otherProcess: SQLite.Database;
  let loopDelay: IntervalHistogram;

  const ann = { name: 'Ann', email: 'ann@example.org' };
  const timed = async <T>(work: () => PromiseLike<T>) => {
    const start = performance.now();
    const result = await work();
    return { result, ms: performance.now() - start };
  };
  const maxLoopStallMs = () => loopDelay.max / 1e6;

  beforeEach(async () => {
    app = await createTestApp({ busyDeadlineMs: DEADLINE_MS });
    request = app.request;
    otherProcess = new SQLite(app.databasePath);
    otherProcess.exec('BEGIN IMMEDIATE');
    loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
  });
  afterEach(async () => {
    loopDelay.disable();
    if (otherProcess.inTransaction) otherProcess.exec('ROLLBACK');
    otherProcess.close();
    await app.close();
  });

  it('keeps answering while a write waits, and the write succeeds once the lock is released', async () => {
    const waitingPost = timed(() => request.post('/users').send(ann));
    await sleep(50); // the POST is now waiting for the lock

    const root = await timed(() => request.get('/'));
    expect(root.result.status).to.equal(200);
    expect(root.ms).to.be.below(STALL_LIMIT_MS);
    // WAL readers never wait for a writer, and the waiting write does not hold the connection.
    const list = await timed(() => request.get('/users'));
    expect(list.result.status).to.equal(200);
    expect(list.ms).to.be.below(STALL_LIMIT_MS);

    await sleep(300);
    otherProcess.exec('COMMIT');
    const post = await waitingPost;
    expect(post.result.status, post.result.text).to.equal(201);
    expect(post.ms).to.be.at.least(300).and.below(DEADLINE_MS);
    expect(maxLoopStallMs()).to.be.below(STALL_LIMIT_MS);
    expect(await app.db.selectFrom('users').select(['name', 'email']).execute()).to.deep.equal([ann]);
  });

  it('answers 503 in plain text with Retry-After when the lock outlives the deadline, and writes nothing', async () => {
    // The record to update and delete is written before the lock is taken again.
    otherProcess.exec('COMMIT');
    const created = await request.post('/users').send(ann);
    otherProcess.exec('BEGIN IMMEDIATE');
    const id = created.body.id as number;
    const writes: Array<[string, () => supertest.Test]> = [
      ['POST', () => request.post('/users').send({ name: 'Bob', email: 'bob@example.org' })],
      ['PUT', () => request.put(`/users/${id}`).send({ name: 'Annie', email: 'annie@example.org' })],
      ['DELETE', () => request.delete(`/users/${id}`)],
    ];
    const answers = await Promise.all(writes.map(([, send]) => timed(send)));
    answers.forEach(({ result: res, ms }, index) => {
      const what = writes[index]![0];
      expect(res.status, what).to.equal(503);
      expect(res.headers['content-type'], what).to.match(/^text\/plain/);
      expect(res.headers['retry-after'], what).to.equal('1');
      expect(res.text, what).to.match(/database is locked by another process/);
      expect(ms, what).to.be.at.least(DEADLINE_MS - 50);
    });
    expect(maxLoopStallMs()).to.be.below(STALL_LIMIT_MS);

    otherProcess.exec('ROLLBACK');
    expect(await app.db.selectFrom('users').selectAll().execute()).to.deep.equal([created.body]);
    expect((await request.post('/users').send({ name: 'Bob', email: 'bob@example.org' })).status).to.equal(201);
  });
});
