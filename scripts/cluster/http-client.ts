/**
 * One HTTP exchange through the balancer, reduced to what the replica test judges: the status
 * (0 when no answer came), which replica answered (HAProxy's X-Served-By, also on its own 502s),
 * and when it started and ended.
 */
import { Agent, request } from 'node:http';

export interface Exchange {
  method: string;
  path: string;
  status: number;
  /** HAProxy's name of the replica that answered (or that the failed attempt was on). */
  servedBy: string | undefined;
  retryAfter: string | undefined;
  body: string;
  /** A network error or time-out instead of an answer. */
  error: string | undefined;
  /** performance.now() at the start and at the end. */
  start: number;
  end: number;
}

export function keepAliveAgent(connections: number): Agent {
  return new Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections });
}

export function exchange(
  agent: Agent,
  base: URL,
  method: string,
  path: string,
  options: { json?: unknown; headers?: Record<string, string>; timeoutMs: number },
): Promise<Exchange> {
  const body = options.json === undefined ? undefined : JSON.stringify(options.json);
  const start = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const done = (fields: Partial<Exchange>) => {
      if (settled) return;
      settled = true;
      resolve({ method, path, status: 0, servedBy: undefined, retryAfter: undefined, body: '', error: undefined, start, end: performance.now(), ...fields });
    };
    const req = request(
      {
        agent,
        host: base.hostname,
        port: base.port,
        method,
        path,
        timeout: options.timeoutMs,
        headers: {
          ...options.headers,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          done({
            status: res.statusCode ?? 0,
            servedBy: header(res.headers['x-served-by']),
            retryAfter: header(res.headers['retry-after']),
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', (error) => done({ error: error.message }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    req.on('error', (error) => done({ error: error.message }));
    req.end(body);
  });
}

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
