import { expect } from 'chai';
import { DEFAULT_LIMITS } from '../../src/config/load-config.js';
import type { Engine } from '../../src/inference/engine.js';
import type { Manifest } from '../../src/inference/manifest.js';
import { bodyBytesPerSlot } from '../../src/inference/tasks.js';
import { bearer, createTestApp, TEST_API_KEY, type TestApp } from '../helpers/test-app.js';
import { heldEngine } from '../helpers/held-engine.js';
import { until } from '../helpers/until.js';

const MANIFEST: Manifest = {
  models: [{ id: 'held', task: 'text-classification', engine: 'held', description: 'test', license: 'mit' }],
};

describe('admission: a bound on the inference requests of one task held at once', () => {
  let app: TestApp;
  const { engine, state } = heldEngine();

  before(async () => {
    app = await createTestApp({
      manifest: MANIFEST,
      engines: { held: engine },
      limits: { maxPendingRequests: { ...DEFAULT_LIMITS.maxPendingRequests, 'text-classification': 2 } },
    });
  });
  after(() => app.close());
  afterEach(() => {
    state.close();
  });

  const classify = (body: object = { model: 'held', query: 'hello' }) => app.request.post('/v1/classifications').set('Authorization', bearer()).send(body);

  it('answers 503 server_busy with Retry-After once the bound is reached, and admits again when a slot frees', async () => {
    const first = [classify(), classify()].map((request) => request.then((res) => res));
    await until(() => state.running === 2);

    const refused = await classify();
    expect(refused.status).to.equal(503);
    expect(refused.headers['retry-after']).to.equal('1');
    expect(refused.body.error.code).to.equal('server_busy');
    expect(refused.body.error.message).to.match(/2 text-classification requests/);

    state.open();
    for (const res of await Promise.all(first)) expect(res.status).to.equal(200);
    expect((await classify()).status).to.equal(200);
  });

  it('counts each task on its own: a full classification queue does not refuse speech to text', async () => {
    const first = [classify(), classify()].map((request) => request.then((res) => res));
    await until(() => state.running === 2);
    const transcription = await app.request
      .post('/v1/transcriptions?model=missing')
      .set('Authorization', bearer())
      .set('Content-Type', 'audio/mpeg')
      .send(Buffer.from([0xff, 0xfb, 0x90, 0x00]));
    expect(transcription.status).to.equal(404);
    state.open();
    await Promise.all(first);
  });

  it('frees the slot of a request that fails validation', async () => {
    state.open();
    for (let i = 0; i < 5; i++) expect((await classify({ model: 'held', query: '' })).status).to.equal(400);
    expect((await classify()).status).to.equal(200);
  });

  it('refuses a large body without reading it', async () => {
    const first = [classify(), classify()].map((request) => request.then((res) => res));
    await until(() => state.running === 2);
    const refused = await classify({ model: 'held', query: 'x'.repeat(5_000_000) });
    expect(refused.status).to.equal(503);
    expect(refused.body.error.code).to.equal('server_busy');
    state.open();
    await Promise.all(first);
  });

  it('counts a batch as its texts: admitted whole when the slots are free, 503 when they are not, 413 when it never fits', async () => {
    state.open();
    const whole = await classify({ model: 'held', query: ['one', 'two'] });
    expect(whole.status).to.equal(200);
    expect(whole.body.results).to.have.length(2);

    const never = await classify({ model: 'held', query: ['one', 'two', 'three'] });
    expect(never.status).to.equal(413);
    expect(never.body.error.message).to.match(/batch of 3 texts is more than this server holds at once \(2\)/);

    state.close();
    const single = classify().then((res) => res);
    await until(() => state.running === 1);
    const busy = await classify({ model: 'held', query: ['one', 'two'] });
    expect(busy.status).to.equal(503);
    expect(busy.headers['retry-after']).to.equal('1');
    expect(busy.body.error.message).to.match(/batch of 2 texts does not fit/);
    state.open();
    expect((await single).status).to.equal(200);
    // The refused batch gave its slot back: two single requests fit again.
    const pair = await Promise.all([classify(), classify()]);
    for (const res of pair) expect(res.status).to.equal(200);
  });

  it('keeps the slot of a client that hung up until its inference is over', async () => {
    const abandoned = [classify().timeout(100), classify().timeout(100)].map((request) =>
      request.then(
        () => 'answered',
        () => 'hung up',
      ),
    );
    expect(await Promise.all(abandoned)).to.deep.equal(['hung up', 'hung up']);
    expect(state.running).to.equal(2);
    expect((await classify()).status).to.equal(503);
    state.open();
    await until(() => state.running === 0);
    expect((await classify()).status).to.equal(200);
  });
});

describe('admission of embedding batches: the door claims slots by the size of the body', () => {
  let app: TestApp;
  let running = 0;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const held: Engine<'embeddings'> = {
    tasks: ['embeddings'],
    isInstalled: async () => true,
    load: async () => ({
      async embed(texts) {
        running++;
        await gate;
        running--;
        return texts.map(() => new Float32Array([1, 0]));
      },
      dispose: async () => {},
    }),
  };

  before(async () => {
    app = await createTestApp({
      manifest: { models: [{ id: 'held-embeddings', task: 'embeddings', engine: 'held', description: 'test', license: 'mit' }] },
      engines: { held },
      limits: { maxPendingRequests: { ...DEFAULT_LIMITS.maxPendingRequests, embeddings: 4 } },
    });
  });
  after(() => (release(), app.close()));

  const embed = (input: string | string[]) => app.request.post('/v1/embeddings').set('Authorization', bearer()).send({ model: 'held-embeddings', input });
  const perSlot = bodyBytesPerSlot('embeddings')!;

  it('refuses at once a body larger than every slot stands for (413), and counts a large body as its share of slots', async () => {
    const never = await embed('x'.repeat(4 * perSlot + 1));
    expect(never.status).to.equal(413);
    expect(never.body.error.message).to.match(/a body of \d+ bytes is more than this server holds at once \(4 embeddings slots of 4096 bytes\)/);

    // Three slots' worth of body (one text), held in the model: one single request still fits, a second does not.
    const large = embed('x'.repeat(2 * perSlot + 100)).then((res) => res);
    await until(() => running === 1);
    const single = embed('y').then((res) => res);
    await until(() => running === 2);
    const busy = await embed('z');
    expect(busy.status).to.equal(503);
    expect(busy.body.error.code).to.equal('server_busy');
    release();
    expect((await large).status).to.equal(200);
    expect((await single).status).to.equal(200);
  });
});

describe('admission: slots kept for other keys', () => {
  const OTHER_KEY = 'other-key-0123456789abcdef';
  let app: TestApp;
  const { engine, state } = heldEngine();

  before(async () => {
    app = await createTestApp({
      manifest: MANIFEST,
      engines: { held: engine },
      env: { API_KEYS: `${TEST_API_KEY},${OTHER_KEY}` },
      limits: { maxPendingRequests: { ...DEFAULT_LIMITS.maxPendingRequests, 'text-classification': 8 } },
    });
  });
  after(() => (state.open(), app.close()));

  const classify = (key = TEST_API_KEY) =>
    app.request
      .post('/v1/classifications')
      .set('Authorization', bearer(key))
      .send({ model: 'held', query: 'hello' })
      .then((res) => res);

  it('refuses one key its task’s last eighth of the slots, and admits another key there', async () => {
    const first = Array.from({ length: 7 }, () => classify());
    await until(() => state.running === 7);

    const refused = await classify();
    expect(refused.status).to.equal(503);
    expect(refused.headers['retry-after']).to.equal('1');
    expect(refused.body.error).to.include({ code: 'server_busy' });
    expect(refused.body.error.message).to.equal('this API key already holds 7 of the 8 text-classification slots, and 1 is kept for other keys; retry shortly');
    const other = classify(OTHER_KEY);
    await until(() => state.running === 8);

    state.open();
    for (const res of [...(await Promise.all(first)), await other]) expect(res.status).to.equal(200);
    expect((await classify()).status, 'the key’s slots are freed with its requests').to.equal(200);
  });
});
