/**
 * Sends one request exactly as written (request targets that HTTP clients would normalise:
 * `/V1`, `/v1/../x`, absolute form) over a plain socket, and reads the status line, headers
 * and body of the answer.
 */
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export function rawRequest(port: number, head: string, body = '', timeoutMs = 10_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms to ${head.split('\r\n')[0]}`));
    }, timeoutMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseResponse(Buffer.concat(chunks).toString('latin1')));
    });
    socket.write(`${head}\r\nConnection: close\r\n\r\n${body}`);
  });
}

function parseResponse(text: string): RawResponse {
  const [headText = '', ...rest] = text.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = headText.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') };
}

/**
 * A WebSocket upgrade of `target` exactly as written: the status of the answer (101 when the
 * server switched protocols) and, for a refusal, its body.
 */
export function rawUpgrade(port: number, target: string, headers: Record<string, string> = {}, timeoutMs = 10_000): Promise<RawResponse> {
  const head = [
    `GET ${target} HTTP/1.1`,
    'Host: 127.0.0.1',
    'Upgrade: websocket',
    'Connection: Upgrade',
    'Sec-WebSocket-Version: 13',
    'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms to upgrade ${target}`));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(parseResponse(Buffer.concat(chunks).toString('latin1')));
    };
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      // Switched: the socket now speaks WebSocket and stays open; the head is all we want.
      if (/^HTTP\/1\.1 101 [\s\S]*?\r\n\r\n/.test(Buffer.concat(chunks).toString('latin1'))) done();
    });
    socket.on('error', reject);
    socket.on('close', done);
    socket.write(`${head}\r\n\r\n`);
  });
}
