/**
 * How the client fails: typed errors from each kind of error body, the opt-in retry of 503
 * `server_busy` (a real full admission queue, and a stub fetch for the Retry-After rules), and
 * AbortSignal on a waiting request, a retry's wait and a streamed answer.
 */
import { expect } from 'chai';
import { InferenceClient, InferenceError } from '../../src/client/index.js';
import { retryAfterSeconds, errorFromResponse } from '../../src/client/errors.js';
import { retryDelayMs } from '../../src/client/retry.js';
import { DEFAULT_LIMITS } from '../../src/config/load-config.js';
import { ENGINES } from '../../src/inference/engines.js';
import type { Manifest } from '../../src/inference/manifest.js';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';
import { rejection } from '../helpers/rejection.js';
import { serveTestApp, type ServedApp } from './serve-test-app.js';
import { heldEngine } from '../helpers/held-engine.js';
import { until } from '../helpers/until.js';

/** The global fetch, counting the statuses it sees. */
function watchedFetch() {
  const statuses: number[] = [];
  const fetcher: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    statuses.push(response.status);
    return response;
  };
  return { fetch: fetcher, statuses };
}

/** A fetch that answers from a list, recording each request. */
function stubFetch(answers: Array<() => Response>) {
  const calls: Request[] = [];
  const fetcher: typeof fetch = async (input, init) => {
    calls.push(new Request(input, init));
    const next = answers.shift();
    if (!next) throw new Error('no more stub answers');
    return next();
  };
  return { fetch: fetcher, calls };
}

const busy = (retryAfter?: string) => () =>
  new Response(JSON.stringify({ error: { message: 'Too many requests', type: 'service_unavailable_error', code: 'server_busy' } }), {
    status: 503,
    headers: { 'Content-Type': 'application/json', 'X-Request-Id': 'req-1', ...(retryAfter === undefined ? {} : { 'Retry-After': retryAfter }) },
  });
const ok = () => () =>
  new Response(JSON.stringify({ labels: [{ label: 'ok', confidence: 1 }] }), { status: 200, headers: { 'Content-Type': 'application/json' } });

describe('client errors, retry and abort', () => {
  const { engine, state } = heldEngine();
  const MANIFEST: Manifest = {
    models: [
      { id: 'held', task: 'text-classification', engine: 'held', description: 'test', license: 'mit' },
      { id: 'piper-random', task: 'text-to-speech', engine: 'piper', description: 'fixture', license: 'test', options: { threads: 1 } },
    ],
  };
  let served: ServedApp;
  before(async () => {
    served = await serveTestApp({
      manifest: MANIFEST,
      modelsDir: `${REPO_ROOT}/test/fixtures/models`,
      engines: { ...ENGINES, held: engine },
      limits: { maxPendingRequests: { ...DEFAULT_LIMITS.maxPendingRequests, 'text-classification': 1 } },
    });
  });
  after(() => served.close());
  afterEach(async () => {
    state.open();
    await until(() => state.running === 0);
    state.close();
  });

  /** Fills the one classification slot; resolves once the held request runs (wrapped: an async function would adopt the promise). */
  async function fillTheQueue(): Promise<{ held: Promise<unknown> }> {
    const held = served.client().classify({ model: 'held', query: 'first' });
    held.catch(() => {});
    await until(() => state.running === 1);
    return { held };
  }

  describe('a real busy server (the classification queue of 1 is full)', () => {
    it('without retry: InferenceError 503 server_busy with retryAfter and the request id', async () => {
      await fillTheQueue();
      const error = await rejection(served.client().classify({ model: 'held', query: 'second' }));
      expect(error).to.be.instanceOf(InferenceError).and.include({ status: 503, code: 'server_busy', retryAfter: 1 });
      expect((error as InferenceError).requestId).to.be.a('string');
    });

    it('with retry: waits Retry-After, sends again and succeeds once the slot frees', async () => {
      const { held } = await fillTheQueue();
      const watched = watchedFetch();
      const retried = served.client({ fetch: watched.fetch, retry: { maxRetries: 3 } }).classify({ model: 'held', query: 'second' });
      await until(() => watched.statuses.includes(503));
      state.open();
      await held;
      expect(await retried).to.deep.equal({ labels: [{ label: 'ok', confidence: 1 }] });
      expect(watched.statuses).to.deep.equal([503, 200]);
    });

    it('aborting during the retry wait rejects at once with the signal reason', async () => {
      await fillTheQueue();
      const watched = watchedFetch();
      const controller = new AbortController();
      const call = served
        .client({ fetch: watched.fetch, retry: { maxRetries: 3, maxDelayMs: 60_000 } })
        .classify({ model: 'held', query: 'x' }, { signal: controller.signal });
      await until(() => watched.statuses.length === 1);
      controller.abort();
      const error = await rejection(call);
      expect(error.name).to.equal('AbortError');
      expect(watched.statuses).to.deep.equal([503]);
    });

    it('aborting a request the server is still answering rejects with an AbortError', async () => {
      const controller = new AbortController();
      const call = served.client().classify({ model: 'held', query: 'slow' }, { signal: controller.signal });
      await until(() => state.running === 1);
      controller.abort();
      expect((await rejection(call)).name).to.equal('AbortError');
    });
  });

  describe('abort', () => {
    it('an already-aborted signal sends nothing', async () => {
      const stub = stubFetch([ok()]);
      const client = new InferenceClient({ baseUrl: 'http://127.0.0.1:9', fetch: stub.fetch });
      const error = await rejection(client.classify({ model: 'm', query: 'q' }, { signal: AbortSignal.abort() }));
      expect(error.name).to.equal('AbortError');
      expect(stub.calls).to.have.length(0);
    });

    it('aborting while a speech stream is read stops the reading', async () => {
      const controller = new AbortController();
      const speech = await served
        .client()
        .speak({ model: 'piper-random', input: 'One sentence. Another sentence. And a third one here. And a fourth.' }, { signal: controller.signal });
      const reader = speech.body.getReader();
      await reader.read();
      controller.abort();
      const error = await rejection(
        (async () => {
          for (;;) if ((await reader.read()).done) return;
        })(),
      );
      expect(error.name).to.equal('AbortError');
    });

    it('the users methods take a signal too', async () => {
      const error = await rejection(served.client().users.list({ signal: AbortSignal.abort() }));
      expect(error.name).to.equal('AbortError');
    });
  });

  describe('retry rules (stub fetch)', () => {
    const client = (answers: Array<() => Response>, retry?: { maxRetries: number; maxDelayMs?: number }) => {
      const stub = stubFetch(answers);
      return { stub, client: new InferenceClient({ baseUrl: 'http://server.test', apiKey: 'k'.repeat(16), fetch: stub.fetch, ...(retry ? { retry } : {}) }) };
    };

    it('retries up to maxRetries, then throws the last busy answer', async () => {
      const { stub, client: c } = client([busy('0'), busy('0'), busy('0')], { maxRetries: 2 });
      const error = await rejection(c.classify({ model: 'm', query: 'q' }));
      expect(error).to.include({ status: 503, code: 'server_busy', retryAfter: 0, requestId: 'req-1' });
      expect(stub.calls).to.have.length(3);
    });

    it('succeeds when an answer within maxRetries is not busy, and sends the same body each time', async () => {
      const { stub, client: c } = client([busy('0'), ok()], { maxRetries: 2 });
      expect(await c.classify({ model: 'm', query: 'q' })).to.deep.equal({ labels: [{ label: 'ok', confidence: 1 }] });
      const bodies = await Promise.all(stub.calls.map((request) => request.text()));
      expect(bodies).to.deep.equal([JSON.stringify({ model: 'm', query: 'q' }), JSON.stringify({ model: 'm', query: 'q' })]);
      expect(stub.calls[1]!.headers.get('Authorization')).to.equal(`Bearer ${'k'.repeat(16)}`);
    });

    it('sends an upload again whole: the file and fields of a retried transcription', async () => {
      const text = () => () => new Response('{"text":"hi"}', { status: 200, headers: { 'Content-Type': 'application/json' } });
      const { stub, client: c } = client([busy('0'), text()], { maxRetries: 1 });
      const file = new Blob([new Uint8Array([82, 73, 70, 70, 1, 2, 3])]).stream();
      expect(await c.transcribe({ model: 'm', file, language: 'en' })).to.deep.equal({ text: 'hi' });
      const forms = await Promise.all(stub.calls.map((request) => request.formData()));
      for (const form of forms) {
        expect(form.get('model')).to.equal('m');
        expect(form.get('language')).to.equal('en');
        expect(new Uint8Array(await (form.get('file') as Blob).arrayBuffer())).to.deep.equal(new Uint8Array([82, 73, 70, 70, 1, 2, 3]));
      }
    });

    it('does not retry when the server asks for a longer wait than maxDelayMs', async () => {
      const { stub, client: c } = client([busy('30'), ok()], { maxRetries: 2, maxDelayMs: 1000 });
      expect(await rejection(c.classify({ model: 'm', query: 'q' }))).to.include({ code: 'server_busy', retryAfter: 30 });
      expect(stub.calls).to.have.length(1);
    });

    it('retries nothing unless asked, and nothing but server_busy', async () => {
      expect((await rejection(client([busy('0'), ok()]).client.classify({ model: 'm', query: 'q' }))).message).to.equal('Too many requests');
      const notInstalled = () =>
        new Response(JSON.stringify({ error: { message: 'Run: npm run x', type: 'service_unavailable_error', code: 'model_not_installed' } }), {
          status: 503,
          headers: { 'Content-Type': 'application/json', 'Retry-After': '0' },
        });
      const limited = () =>
        new Response(JSON.stringify({ error: { message: 'slow down', code: 'rate_limited' } }), {
          status: 429,
          headers: { 'Content-Type': 'application/json', 'Retry-After': '0' },
        });
      for (const answer of [notInstalled, limited]) {
        const { stub, client: c } = client([answer, ok()], { maxRetries: 3 });
        await rejection(c.classify({ model: 'm', query: 'q' }));
        expect(stub.calls).to.have.length(1);
      }
    });

    it('a busy answer without Retry-After waits the server’s usual 1 s', () => {
      expect(retryDelayMs(new InferenceError(503, 'server_busy', 'busy'), 0, { maxRetries: 1 })).to.equal(1000);
      expect(retryDelayMs(new InferenceError(503, 'server_busy', 'busy', undefined, 2), 0, { maxRetries: 1 })).to.equal(2000);
      expect(retryDelayMs(new InferenceError(503, 'server_busy', 'busy'), 1, { maxRetries: 1 })).to.equal(undefined);
    });

    it('Retry-After as seconds or an HTTP date', () => {
      const now = Date.parse('2026-01-01T00:00:00Z');
      expect(retryAfterSeconds('3', now)).to.equal(3);
      expect(retryAfterSeconds('Thu, 01 Jan 2026 00:00:05 GMT', now)).to.equal(5);
      expect(retryAfterSeconds('Wed, 31 Dec 2025 23:00:00 GMT', now)).to.equal(0);
      expect(retryAfterSeconds('soon', now)).to.equal(undefined);
      expect(retryAfterSeconds(null, now)).to.equal(undefined);
    });
  });

  describe('error bodies', () => {
    it('/v1 JSON errors give their own code; plain text takes the code of its status; {"error": "…"} its message', async () => {
      const json = await errorFromResponse(
        new Response('{"error":{"message":"bad","type":"x","code":"wrong_model_task"}}', { status: 400, headers: { 'Content-Type': 'application/json' } }),
      );
      expect(json).to.include({ status: 400, code: 'wrong_model_task', message: 'bad' });
      const text = await errorFromResponse(new Response('user 4 not found', { status: 404, headers: { 'Content-Type': 'text/plain', 'X-Request-Id': 'abc' } }));
      expect(text).to.include({ status: 404, code: 'not_found', message: 'user 4 not found', requestId: 'abc' });
      const message = await errorFromResponse(new Response('{"error":"Invalid API key"}', { status: 403, headers: { 'Content-Type': 'application/json' } }));
      expect(message).to.include({ status: 403, code: 'invalid_request', message: 'Invalid API key' });
      const proxy = await errorFromResponse(new Response('<html>Bad Gateway</html>', { status: 502, headers: { 'Content-Type': 'text/html' } }));
      expect(proxy).to.include({ status: 502, code: 'internal_error' });
      const long = await errorFromResponse(new Response('x'.repeat(50_000), { status: 500 }));
      expect(long.message).to.have.length(1001);
    });

    it('a network failure is fetch’s own TypeError, not an InferenceError', async () => {
      const client = new InferenceClient({ baseUrl: 'http://127.0.0.1:9' });
      const error = await rejection(client.users.list());
      expect(error).to.be.instanceOf(TypeError);
    });
  });
});
