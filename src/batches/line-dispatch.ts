/**
 * Sends a batch's lines through the app's own request handler, so each line meets exactly what
 * the synchronous route does: its schema, its limits, admission, the key's model list and rate
 * limit, the fair queues. The handler listens on a loopback port of its own; a line's request
 * carries a one-time token, and only this listener turns a token it issued into the trusted
 * mark (trusted-caller.ts). The public listener never reads the header, and a token is random,
 * used once and gone after its request, so nothing sent from outside can pass for a line.
 */
import { randomBytes } from 'node:crypto';
import { Agent, createServer, request, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { markTrusted, type TrustedCaller } from '../auth/trusted-caller.js';

const TOKEN_HEADER = 'x-batch-line-token';

export interface LineRequest {
  caller: TrustedCaller;
  method: string;
  path: string;
  headers: Record<string, string | number>;
  body: Buffer | Readable;
  signal?: AbortSignal;
}

export interface LineResponse {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export class LineDispatcher {
  readonly #handle: RequestListener;
  readonly #pending = new Map<string, TrustedCaller>();
  readonly #agent = new Agent({ keepAlive: true });
  #server: Server | undefined;
  #port = 0;

  constructor(handle: RequestListener) {
    this.#handle = handle;
  }

  async start(): Promise<void> {
    if (this.#server) return;
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const token = req.headers[TOKEN_HEADER];
      delete req.headers[TOKEN_HEADER];
      const caller = typeof token === 'string' ? this.#pending.get(token) : undefined;
      if (typeof token === 'string') this.#pending.delete(token);
      if (!caller) {
        res.writeHead(403).end();
        return;
      }
      markTrusted(req, caller);
      this.#handle(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.#server = server;
    this.#port = (server.address() as AddressInfo).port;
  }

  send(line: LineRequest): Promise<LineResponse> {
    const token = randomBytes(24).toString('hex');
    this.#pending.set(token, line.caller);
    return new Promise<LineResponse>((resolve, reject) => {
      const outgoing = request(
        {
          host: '127.0.0.1',
          port: this.#port,
          method: line.method,
          path: line.path,
          agent: this.#agent,
          headers: { ...line.headers, [TOKEN_HEADER]: token },
          signal: line.signal,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 500, headers: res.headers, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        },
      );
      outgoing.on('error', (error) => {
        this.#pending.delete(token);
        reject(error);
      });
      outgoing.on('close', () => this.#pending.delete(token));
      if (Buffer.isBuffer(line.body)) outgoing.end(line.body);
      else line.body.pipe(outgoing);
    });
  }

  async close(): Promise<void> {
    this.#agent.destroy();
    const server = this.#server;
    this.#server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
