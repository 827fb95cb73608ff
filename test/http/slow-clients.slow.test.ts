import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import { join } from 'node:path';
import Koa from 'koa';
import { DEFAULT_LIMITS } from '../../src/config/load-config.js';
import { createHttpServer } from '../../src/http/http-server.js';
import { slowClientGuard } from '../../src/http/slow-client-guard.js';
import type { Manifest } from '../../src/inference/manifest.js';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';
import { rawRequest } from '../helpers/raw-http.js';
import { createTestApp, TEST_API_KEY, type TestApp } from '../helpers/test-app.js';

const TIMEOUTS = { ...DEFAULT_LIMITS.timeouts, bodyIdleMs: 400, bodyRateGraceMs: 600, bodyMinBytesPerSecond: 2_000, responseStallMs: 500 };
const MANIFEST: Manifest = {
  models: [
    {
      id: 'whisper-tiny-random',
      task: 'speech-to-text',
      engine: 'transformers-asr',
      description: 'random Whisper',
      license: 'MIT',
      options: { maxNewTokens: 4 },
    },
  ],
};

/** Opens a connection, sends `opening`, then `drip()` every `intervalMs` until closed. */
function trickle(port: number, opening: string, intervalMs: number, drip: () => string = () => 'x'): { socket: Socket; answer: Promise<string> } {
  const socket = connect(port, '127.0.0.1');
  socket.write(opening);
  const timer = setInterval(() => socket.writable && socket.write(drip()), intervalMs);
  const answer = new Promise<string>((resolve) => {
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      resolve(text);
    });
  });
  return { socket, answer };
}

describe('slow and stalled clients', () => {
  let app: TestApp;
  let server: Server;
  let port: number;

  before(async () => {
    app = await createTestApp({
      manifest: MANIFEST,
      modelsDir: join(REPO_ROOT, 'test/fixtures/models'),
      limits: { timeouts: TIMEOUTS, maxPendingRequests: { ...DEFAULT_LIMITS.maxPendingRequests, 'speech-to-text': 3 } },
    });
    server = createServer(app.app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.close();
    await app.close();
  });

  const uploadHead = (key?: string) =>
    `POST /v1/transcriptions?model=whisper-tiny-random HTTP/1.1\r\nHost: x\r\nContent-Type: audio/wav\r\nContent-Length: 1000000${key ? `\r\nAuthorization: Bearer ${key}` : ''}`;

  it('cuts off uploads that trickle, with 408, and frees their slots for everyone else', async () => {
    const started = Date.now();
    const trickles = Array.from({ length: 3 }, () => trickle(port, `${uploadHead(TEST_API_KEY)}\r\n\r\n`, 100));
    const answers = await Promise.all(trickles.map((t) => t.answer));
    for (const answer of answers) {
      expect(answer).to.match(/^HTTP\/1\.1 408 /);
      expect(answer).to.match(/"code":"request_timeout"/);
      expect(answer).to.match(/connection: close/i);
    }
    expect(Date.now() - started).to.be.below(5_000);
    // Every slot is free again: a small request is admitted (400: not audio), not refused with 503.
    const res = await app.request
      .post('/v1/transcriptions?model=whisper-tiny-random')
      .set('Authorization', `Bearer ${TEST_API_KEY}`)
      .set('Content-Type', 'audio/wav')
      .send(Buffer.from('not audio'));
    expect(res.status).to.equal(400);
  });

  it('answers 408 for a body shorter than its Content-Length instead of waiting for it', async () => {
    const res = await rawRequest(port, `POST /users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100`, '{"name":', 5_000);
    expect(res.status).to.equal(408);
    expect(res.headers['content-type']).to.match(/^text\/plain/);
  });

  it('refuses an unauthenticated upload before it can take a slot or be read', async () => {
    const trickles = Array.from({ length: 5 }, () => trickle(port, `${uploadHead()}\r\n\r\n`, 100));
    const answers = await Promise.all(trickles.map((t) => t.answer));
    // Answered at once; the unread body is then drained, and a trickling one is cut off too.
    for (const answer of answers) expect(answer).to.match(/^HTTP\/1\.1 401 /);
  });
});

/**
 * A server behind the guard whose responses never end (64 KiB chunks for as long as they are read),
 * but for /small, which answers "ok"; `closedAt()` is when the last endless response was closed.
 */
async function endlessResponseServer(): Promise<{ port: number; closedAt: () => number; close: () => void }> {
  const koa = new Koa();
  koa.silent = true;
  let closedAt = 0;
  koa.use(slowClientGuard(TIMEOUTS));
  koa.use((ctx) => {
    if (ctx.path === '/small') {
      ctx.body = 'ok';
      return;
    }
    const chunk = Buffer.alloc(64 * 1024, 1);
    ctx.body = new Readable({
      read() {
        this.push(chunk);
      },
    });
    ctx.res.on('close', () => (closedAt = Date.now()));
  });
  const server = createServer(koa.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, closedAt: () => closedAt, close: () => server.close() };
}

/** Stops reading `socket`, waits 3 s, and checks the server gave up on its response within 2.5 s. */
async function expectAbandoned(socket: Socket, server: { closedAt: () => number; close: () => void }): Promise<void> {
  socket.pause(); // never read (again)
  const started = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  socket.destroy();
  server.close();
  expect(server.closedAt(), 'the server closed the response').to.be.greaterThan(0);
  expect(server.closedAt() - started).to.be.below(2_500);
}

describe('slowClientGuard on responses', () => {
  it('abandons a response the client stops reading', async () => {
    const server = await endlessResponseServer();
    const socket = connect(server.port, '127.0.0.1');
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await expectAbandoned(socket, server);
  });
});

describe('slowClientGuard on a kept-alive connection', () => {
  // The guard reuses a connection's watch for its next request, and gives a pipelined request
  // (one sent before the last was answered) a watch of its own: both must still be cut off.
  for (const pipelined of [false, true]) {
    it(`abandons the ${pipelined ? 'pipelined ' : ''}second response when the client stops reading it`, async () => {
      const server = await endlessResponseServer();
      const socket = connect(server.port, '127.0.0.1');
      socket.on('error', () => {});
      const small = 'GET /small HTTP/1.1\r\nHost: x\r\n\r\n';
      const large = 'GET /large HTTP/1.1\r\nHost: x\r\n\r\n';
      if (pipelined) {
        socket.write(small + large);
      } else {
        socket.write(small);
        await new Promise((resolve) => socket.once('data', resolve));
        socket.write(large);
      }
      await expectAbandoned(socket, server);
    });
  }
});

describe('createHttpServer', () => {
  it("cuts off headers that trickle in at the documented time-out, not at Node's 30-s sweep", async () => {
    const headersMs = 1_500;
    const server = createHttpServer((_req, res) => res.end('ok'), { ...DEFAULT_LIMITS.timeouts, headersMs });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      // One header line every 200 ms: the socket never idles, the head never ends.
      let line = 0;
      const started = Date.now();
      const { answer: answered } = trickle((server.address() as AddressInfo).port, 'GET / HTTP/1.1\r\nHost: x\r\n', 200, () => `X-Slow-${line++}: 1\r\n`);
      const answer = await answered;
      const elapsed = Date.now() - started;
      expect(answer).to.match(/^HTTP\/1\.1 408 /);
      expect(elapsed).to.be.at.least(headersMs - 100);
      // Within one sweep of the time-out (Node's default sweep would take up to 30 s).
      expect(elapsed).to.be.below(headersMs + 2_500);
    } finally {
      server.close();
    }
  });
});
