import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { spawnServer } from './spawn-server.js';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A kept-alive connection, as a load balancer pools them: requests are sent one after another
 * and each answer is read whole (Content-Length), so the connection stays open between them.
 */
class KeptAlive {
  readonly #socket: Socket;
  #buffer = '';
  #waiting: (() => void) | undefined;
  closed = false;

  constructor(port: number) {
    this.#socket = connect(port, '127.0.0.1');
    this.#socket.setEncoding('latin1');
    this.#socket.on('data', (chunk: string) => {
      this.#buffer += chunk;
      this.#waiting?.();
    });
    this.#socket.on('close', () => {
      this.closed = true;
      this.#waiting?.();
    });
    this.#socket.on('error', () => {});
  }

  async get(path: string): Promise<{ status: number; connection: string | undefined }> {
    this.#socket.write(`GET ${path} HTTP/1.1\r\nHost: test\r\n\r\n`);
    for (;;) {
      const end = this.#buffer.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)/i.exec(this.#buffer);
      if (end >= 0 && length && this.#buffer.length >= end + 4 + Number(length[1])) {
        const head = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 4 + Number(length[1]));
        return { status: Number(head.split(' ')[1]), connection: /\r\nconnection: ([^\r]+)/i.exec(head)?.[1]?.toLowerCase() };
      }
      if (this.closed) throw new Error(`connection closed before the answer to GET ${path}`);
      await new Promise<void>((resolve) => (this.#waiting = resolve));
    }
  }

  destroy(): void {
    this.#socket.destroy();
  }
}

describe('server process draining after SIGTERM (SHUTDOWN_DELAY_SECONDS)', function () {
  this.timeout(60_000);
  let dir: string;

  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'lis-test-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps idle kept-alive connections open while draining, answers on them with Connection: close, then exits', async () => {
    const server = await spawnServer({ DATABASE_URL: `sqlite:${join(dir, 'app.db')}`, MODELS_DIR: join(dir, 'models'), SHUTDOWN_DELAY_SECONDS: '3' });
    const { port } = new URL(server.url);
    const first = new KeptAlive(Number(port));
    const second = new KeptAlive(Number(port));
    try {
      expect((await first.get('/readyz')).status).to.equal(200);
      expect((await second.get('/readyz')).status).to.equal(200);

      server.child.kill('SIGTERM');
      // Until the signal is handled the answers are the usual ones (a loaded machine may take a while).
      let draining = await first.get('/readyz');
      for (let tries = 0; draining.status === 200 && tries < 40; tries += 1) {
        await delay(50);
        draining = await first.get('/readyz');
      }
      // An answer finished on one connection must not close the others: a balancer that has
      // not yet seen /readyz fail may be sending a request on one of them at this moment.
      expect(draining).to.deep.equal({ status: 503, connection: 'close' });
      await delay(300);
      expect(second.closed, 'an idle kept-alive connection was closed during the drain delay').to.equal(false);
      expect(await second.get('/healthz')).to.deep.equal({ status: 200, connection: 'close' });

      const started = Date.now();
      expect(await server.exited).to.equal(0);
      // The rest of the 3-s delay, not a 5-s keep-alive time-out on top of it.
      expect(Date.now() - started).to.be.below(4_000);
    } finally {
      first.destroy();
      second.destroy();
      server.child.kill('SIGKILL');
    }
  });
});
