/**
 * A client of /v1/realtime for tests: a real WebSocket to a real listening app, recording the
 * events the server sends.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { TEST_API_KEY, type TestApp } from './test-app.js';

export interface ServerEvent {
  type: string;
  event_id: string;
  [field: string]: unknown;
}

/** A client of one session that records what the server sent. */
export class RealtimeClient {
  readonly events: ServerEvent[] = [];
  readonly #waiters: { test: (event: ServerEvent) => boolean; resolve: (event: ServerEvent) => void }[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const event = JSON.parse(data.toString()) as ServerEvent;
      this.events.push(event);
      for (const waiter of [...this.#waiters]) {
        if (waiter.test(event)) {
          this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
          waiter.resolve(event);
        }
      }
    });
    this.closed = new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  send(event: Record<string, unknown>): void {
    this.ws.send(JSON.stringify(event));
  }

  /** The next event of `type` (or one already received since `from`). */
  next(type: string, from = 0): Promise<ServerEvent> {
    const seen = this.events.slice(from).find((event) => event.type === type);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.#waiters.push({ test: (event) => event.type === type, resolve }));
  }

  /** How many events of `type` arrived so far. */
  count(type: string): number {
    return this.events.filter((event) => event.type === type).length;
  }
}

export async function listen(app: TestApp): Promise<{ server: Server; url: string; port: number }> {
  const server = app.app.listen(0, '127.0.0.1');
  server.on('upgrade', app.app.realtime.upgrade);
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `ws://127.0.0.1:${port}`, port };
}

/** Ends what `listen` started: live sessions first, then open sockets, the server and the app. */
export async function stopListening(app: TestApp | undefined, server: Server | undefined): Promise<void> {
  app?.app.realtime.close();
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  await app?.close();
}

export function connect(url: string, options: { headers?: Record<string, string>; protocols?: string[] } = {}): Promise<RealtimeClient> {
  const ws = new WebSocket(url, options.protocols ?? [], { headers: options.headers });
  const client = new RealtimeClient(ws);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(client));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk));
      res.on('end', () => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode, body, headers: res.headers })));
    });
    ws.once('error', reject);
  });
}

export const withKey = (key = TEST_API_KEY) => ({ headers: { Authorization: `Bearer ${key}` } });

/** As a beta client connects (the beta SDKs send this header): the session first speaks the beta protocol. */
export const withBetaKey = (key = TEST_API_KEY) => ({ headers: { Authorization: `Bearer ${key}`, 'OpenAI-Beta': 'realtime=v1' } });

/** The HTTP answer to an upgrade the server refuses (fails the test if it accepts). */
export async function refused(
  url: string,
  options: Parameters<typeof connect>[1] = {},
): Promise<{ status: number; body: string; headers: Record<string, string> }> {
  try {
    const client = await connect(url, options);
    client.ws.close();
  } catch (error) {
    return error as { status: number; body: string; headers: Record<string, string> };
  }
  throw new Error(`connected to ${url}`);
}

/** Resolves after `ms`, to `value`. */
export function resolveAfter<T>(ms: number, value: T): Promise<T> {
  return new Promise((resolve) => setTimeout(() => resolve(value), ms));
}
