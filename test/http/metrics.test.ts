import { expect } from 'chai';
import { createLogger } from '../../src/logger.js';
import { keyLabel } from '../../src/http/metrics.js';
import type { Engine } from '../../src/inference/engine.js';
import { bearer, createTestApp, TEST_API_KEY, type TestApp } from '../helpers/test-app.js';

/** A classifier that answers at once, or fails for the text "fail". */
const ECHO: Engine<'text-classification'> = {
  tasks: ['text-classification'],
  isInstalled: async () => true,
  load: async () => ({
    async classify(text: string) {
      if (text === 'fail') throw new Error('model crashed');
      return [{ label: 'ok', confidence: 1 }];
    },
    dispose: async () => {},
  }),
};

describe('metrics and the access log', () => {
  let app: TestApp;
  const lines: Record<string, unknown>[] = [];
  before(async () => {
    app = await createTestApp({
      logger: createLogger('info', (line) => lines.push(JSON.parse(line))),
      manifest: { models: [{ id: 'echo', task: 'text-classification', engine: 'echo', description: 'test', license: 'mit' }] },
      engines: { echo: ECHO },
    });
  });
  after(() => app.close());

  it('serves Prometheus text to a key holder only', async () => {
    expect((await app.request.get('/metrics')).status).to.equal(401);
    const res = await app.request.get('/metrics').set('Authorization', bearer());
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.match(/^text\/plain; version=0.0.4/);
    expect(res.text).to.include('# TYPE http_requests_total counter').and.include('process_cpu_user_seconds_total');
  });

  it('counts requests by route pattern and status, unmatched paths under one label', async () => {
    await app.request.get('/');
    await app.request.get('/users/12345');
    await app.request.get('/no/such/path/1');
    await app.request.get('/no/such/path/2');
    const text = (await app.request.get('/metrics').set('Authorization', bearer())).text;
    expect(text).to.match(/http_requests_total\{method="GET",route="\/",status="200"\} [1-9]/);
    expect(text).to.match(/http_requests_total\{method="GET",route="\/users\/:id",status="404"\} 1/);
    expect(text).to.match(/http_requests_total\{method="GET",route="\(unmatched\)",status="404"\} 2/);
    expect(text).to.include('http_request_duration_seconds_bucket');
    expect(text).to.include('admission_pending_requests');
  });

  it('writes one access-log line per request, naming the key without writing it', async () => {
    lines.length = 0;
    await app.request.get('/v1/models').set('Authorization', bearer()).set('X-Request-Id', 'trace-42');
    await new Promise((resolve) => setImmediate(resolve));
    const entry = lines.find((line) => line.message === 'request' && line.requestId === 'trace-42');
    expect(entry).to.deep.include({ method: 'GET', route: '/v1/models', status: 200 });
    expect(entry!.key).to.match(/^sha256:[0-9a-f]{8}$/);
    expect(JSON.stringify(lines)).not.to.include(TEST_API_KEY);
    expect(keyLabel('Bearer lis_abcdefghSECRETPART')).to.equal('lis_abcdefgh');
  });

  it('times each model call by model, task and outcome, and counts the characters it processed', async () => {
    const classify = (query: string) => app.request.post('/v1/classifications').set('Authorization', bearer()).send({ model: 'echo', query });
    expect((await classify('héllo 😀')).status).to.equal(200);
    expect((await classify('fail')).status).to.equal(500);
    const text = (await app.request.get('/metrics').set('Authorization', bearer())).text;
    expect(text).to.match(/inference_seconds_count\{model="echo",task="text-classification",outcome="ok"\} 1\n/);
    expect(text).to.match(/inference_seconds_count\{model="echo",task="text-classification",outcome="error"\} 1\n/);
    // Characters as limits count them (code points): "héllo 😀" is 7.
    expect(text).to.match(/processed_characters_total\{model="echo",task="text-classification"\} 7\n/);
  });
});
