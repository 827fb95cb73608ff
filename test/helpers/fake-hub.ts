/**
 * A local stand-in for the Hugging Face hub: serves `/<repo>/resolve/<revision>/<path>` from
 * memory on 127.0.0.1, honours `Range: bytes=N-`, and can cut a transfer half-way once.
 */
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';

export interface FakeHub {
  url: string;
  /** Every request: path and its Range header. */
  requests: Array<{ path: string; range: string | undefined }>;
  /** Paths whose next response is cut after half the body. */
  cutOnce: Set<string>;
  /** Paths whose next response sends half the body, then nothing (the socket stays open). */
  stallOnce: Set<string>;
  close(): Promise<void>;
}

export async function startFakeHub(files: Record<string, Buffer>): Promise<FakeHub> {
  const requests: FakeHub['requests'] = [];
  const cutOnce = new Set<string>();
  const stallOnce = new Set<string>();
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    requests.push({ path, range: req.headers.range });
    const body = files[path];
    if (!body) {
      res.writeHead(404).end('Entry not found');
      return;
    }
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const start = range ? Number(range[1]) : 0;
    if (start >= body.length && range) {
      res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
      return;
    }
    const slice = body.subarray(start);
    const revision = /\/resolve\/([^/]+)\//.exec(path)?.[1];
    res.writeHead(range ? 206 : 200, {
      ...(revision ? { 'x-repo-commit': revision.length === 40 ? revision : 'c0ffee'.padEnd(40, '0') } : {}),
      'content-length': String(slice.length),
      'accept-ranges': 'bytes',
      ...(range ? { 'content-range': `bytes ${start}-${body.length - 1}/${body.length}` } : {}),
    });
    if (stallOnce.delete(path)) {
      res.write(slice.subarray(0, Math.floor(slice.length / 2)));
      return;
    }
    if (cutOnce.delete(path)) {
      // Give the client time to store the first half before the connection dies.
      res.write(slice.subarray(0, Math.floor(slice.length / 2)), () => setTimeout(() => res.destroy(), 100));
      return;
    }
    res.end(slice);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    cutOnce,
    stallOnce,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port that was just free: connecting to it is refused. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** A server that accepts connections and never answers: a hub behind a black-holing firewall. */
export async function silentServerUrl(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<import('node:net').Socket>();
  const server = createNetServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
